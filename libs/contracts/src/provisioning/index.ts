export * from './provisioning.events.ts';
export * from './provisioning.rpc.ts';
