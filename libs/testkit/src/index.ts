export * from './database.ts';
export * from './nats.ts';
export * from './smtp.ts';
export * from './logs.ts';
export * from './launcher.ts';
export * from './processes.ts';
export * from './wireguard-lab.ts';
export * from './postgres.ts';
