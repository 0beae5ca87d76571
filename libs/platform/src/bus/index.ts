export { connectBus, type BusConnection } from './connection.ts';
export { Namespace } from './subjects.ts';
export {
  declareDurable,
  declareDurableConsumer,
  serviceDurableConfig,
  type DurableConfig,
  ensureStream,
  ensureDeadLetterStream,
  isAlreadyDeclared,
  isNotFound,
  streamMaxAge,
} from './streams.ts';
export { createEnvelope, decodeEnvelope } from './envelope.ts';
export {
  addToOutbox,
  addManyToOutbox,
  addEventsToOutbox,
  defaultOutboxRetentionMs,
  OutboxRelay,
  outboxSequenceHeader,
  outboxSequenceOf,
  type RelayOptions,
} from './outbox.ts';
export {
  IdempotentConsumer,
  inboxRetentionMs,
  pruneInbox,
  redeliveryDelayMs,
  uuidV7Floor,
  bucketOf,
  type BatchHandler,
  type ReceivedEvent,
  type ConsumerOptions,
  type EventHandler,
} from './consumer.ts';
export {
  serveRpc,
  endpoint,
  RpcClient,
  ForwardedAnswer,
  refuseEveryCallerToken,
  refuseRpcInTransactions,
  allowRpcInTransactions,
  type CallerVerifier,
  type RpcEndpoint,
  type RpcHandler,
  type RpcServer,
} from './rpc.ts';
export { describeProblems, isValid } from './validation.ts';
export { busMetrics } from './metrics.ts';
export { sampledMetrics, startMetricsSampler, type ServiceGauge, type SamplerOptions } from './sampled-metrics.ts';
export {
  natsMaxControlLine,
  natsOperatorConfig,
  natsPermissions,
  natsServerConfig,
  type NatsPermissions,
  type NatsSecret,
  type NatsUser,
} from './access.ts';
export {
  callerTokenSigner,
  callerTokenVerifier,
  callerTokenSeconds,
  generateCallerKeyPair,
} from './caller-tokens.ts';
export { busConnectOptions, busUserOf, inboxOwnerOf, inboxPrefixOf, type BusOptions } from './connection.ts';
export {
  BusIdentities,
  busAccountName,
  createBusKeys,
  credsJwt,
  credsPublicKey,
  credsSigner,
  credsUser,
  jwtClaims,
  pushAccountJwt,
  pushAccountJwtTo,
  retireSigningKey,
  rotateSigningKey,
  type BusIdentity,
  type BusKeys,
  type NatsOperatorAuth,
  type Revocations,
} from './identities.ts';
export { ensureNatsCertificates, type NatsTlsFiles } from './tls.ts';
export {
  busKeysFile,
  credsFile,
  keepRevocations,
  mergeRevocations,
  openBusIdentities,
  readBusKeys,
  readRevocations,
  revocationsFile,
} from './identity-folder.ts';
