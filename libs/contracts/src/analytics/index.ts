export * from './analytics.ts';
export * from './analytics.rpc.ts';
