export * from './errors.ts';
export * from './config/index.ts';
export * from './logger/index.ts';
export * from './db/index.ts';
export * from './bus/index.ts';
export * from './http/index.ts';
export * from './mailer/index.ts';
export * from './service.ts';
