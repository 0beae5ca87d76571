import { desiredPeersRpc, type nodePeerChanged } from '@qw/contracts';
import type { RpcClient } from '@qw/platform/bus';
import type { Static } from 'typebox';
import type { AgentPeerChange } from './wg-host.ts';

type PeerChangeEvent = Static<typeof nodePeerChanged.schema>;

/**
 * Preshared keys never travel in events (a stream keeps them a week): a change that says its peer
 * has one is completed from provisioning's answer to this node's own `desired-peers` RPC, which
 * only this node's user can read. A peer provisioning no longer wants (removed since the event) is
 * not added; a key it replaces still leaves.
 */
export async function withPresharedKey(
  rpc: RpcClient,
  nodeName: string,
  event: PeerChangeEvent,
  changes: AgentPeerChange[],
): Promise<AgentPeerChange[]> {
  if (event.change !== 'set' || !event.presharedKey) return changes;
  const answer = await rpc.request(desiredPeersRpc, { public_keys: [event.publicKey] }, undefined, {
    params: { node: nodeName },
  });
  const desired = answer.peers.find((peer) => peer.public_key === event.publicKey);
  if (!desired) return changes.filter((change) => change.remove);
  return changes.map((change) =>
    change.publicKey === event.publicKey && !change.remove
      ? { ...change, presharedKey: desired.preshared_key ?? null }
      : change,
  );
}
