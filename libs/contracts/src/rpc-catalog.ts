import * as analytics from './analytics/index.ts';
import * as billing from './billing/index.ts';
import * as identity from './identity/index.ts';
import { healthRpc } from './platform/health.rpc.ts';
import * as provisioning from './provisioning/index.ts';
import type { RpcContract } from './rpc.ts';
import { backendServices } from './services.ts';
import * as telemetry from './telemetry/index.ts';

function isRpcContract(value: unknown): value is RpcContract {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<RpcContract>;
  return typeof candidate.subject === 'string' && 'request' in candidate && 'response' in candidate;
}

function rpcsOf(module: Record<string, unknown>): RpcContract[] {
  return Object.values(module).filter(isRpcContract);
}

/**
 * Every RPC the product answers, found among the owners' exports (so a new contract is in it
 * without a second list to keep): what the bus permissions are checked against, every subject
 * of every contract either allowed or refused to each NATS user.
 */
export const rpcCatalog: readonly RpcContract[] = [
  ...new Map(
    [
      ...backendServices.map((service) => healthRpc(service)),
      ...[identity, billing, provisioning, telemetry, analytics].flatMap((module) => rpcsOf(module)),
    ].map((contract) => [contract.subject, contract]),
  ).values(),
].sort((a, b) => a.subject.localeCompare(b.subject));

/** The service that answers an RPC: the first token of its subject, `<owner>.rpc.<verb>`. */
export function rpcOwner(contract: RpcContract): string {
  return contract.subject.split('.')[0]!;
}
