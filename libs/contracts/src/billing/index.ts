export * from './billing.events.ts';
export * from './billing.rpc.ts';
export * from './payments.ts';
export * from './account-data.rpc.ts';
export * from './admin-person.rpc.ts';
