export * from './gateway.events.ts';
