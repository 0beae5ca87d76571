export * from './telemetry.rpc.ts';
