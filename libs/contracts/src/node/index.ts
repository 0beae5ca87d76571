export * from './node.events.ts';
