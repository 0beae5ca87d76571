export * from './provisioning.events.ts';
export * from './provisioning.rpc.ts';
export * from './admin.rpc.ts';
export * from './account-data.rpc.ts';
export * from './servers.rpc.ts';
export * from './admin-person.rpc.ts';
