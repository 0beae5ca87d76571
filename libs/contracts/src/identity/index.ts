export * from './identity.events.ts';
export * from './identity.rpc.ts';
