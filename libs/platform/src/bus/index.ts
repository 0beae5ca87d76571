export { connectBus, type BusConnection } from './connection.ts';
export { Namespace } from './subjects.ts';
export { ensureStream, ensureDeadLetterStream } from './streams.ts';
export { createEnvelope, decodeEnvelope } from './envelope.ts';
export { addToOutbox, addManyToOutbox, OutboxRelay, type RelayOptions } from './outbox.ts';
export { IdempotentConsumer, inboxRetentionMs, pruneInbox, redeliveryDelayMs, uuidV7Floor, type BatchHandler, type ConsumerOptions, type EventHandler } from './consumer.ts';
export { serveRpc, endpoint, RpcClient, type RpcEndpoint, type RpcHandler, type RpcServer } from './rpc.ts';
export { describeProblems, isValid } from './validation.ts';
export { busMetrics } from './metrics.ts';
