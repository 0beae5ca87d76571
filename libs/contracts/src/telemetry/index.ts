export * from './telemetry.rpc.ts';
export * from './admin.rpc.ts';
export * from './telemetry.events.ts';
