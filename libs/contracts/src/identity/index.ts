export * from './identity.events.ts';
export * from './identity.rpc.ts';
export * from './organizations.events.ts';
export * from './organizations.rpc.ts';
export * from './admin.rpc.ts';
export * from './directory.rpc.ts';
export * from './authority.rpc.ts';
export * from './account-data.rpc.ts';
