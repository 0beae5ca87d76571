export * from './errors.ts';
export * from './envelope.ts';
export * from './rpc.ts';
export * from './plans.ts';
export * from './platforms.ts';
export * from './services.ts';
export * from './platform/health.rpc.ts';
export * from './catalog.ts';
