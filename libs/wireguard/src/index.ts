export * from './keys.ts';
export * from './private-key-vault.ts';
export * from './config-file.ts';
export * from './qr.ts';
export * from './ip-address.ts';
export * from './addresses.ts';
export * from './wg-dump.ts';
export * from './wg-commands.ts';
