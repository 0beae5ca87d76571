import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import { AppError, type AddServerBodySchema, type EnrolmentAnswer, isUuid } from '@qw/contracts';
import { lockName } from '@qw/platform/db';
import { giveBackRateEvents, takeRateLimited, type RateLimit } from '@qw/platform/limits';
import { nodeSubnets } from '@qw/wireguard';
import type { Node, ProvisioningDatabase } from '../database.ts';
import { recordOperatorAction } from '../admin/operator-actions.repository.ts';
import {
  endpointParts,
  enrolmentExpiry,
  enrolmentRefusal,
  enrolmentTokenHash,
  newEnrolmentRefusal,
  retirementRefusal,
} from './enrolment-rules.ts';
import {
  deleteUnusedEnrolments,
  devicesOnNode,
  lockEnrolment,
  markEnrolmentUsed,
  markNodeRetired,
  recordCredential,
  replaceEnrolment,
  revokeNodeCredentials,
  revokedCredentials,
} from './enrolments.repository.ts';
import type { NodeBusUsers } from './node-bus-users.ts';
import { firstFreeNodeIndex } from './node-rules.ts';
import { insertNode, lockNode, lockNodeRegistry, nodeByName, usedNodeIndexes } from './nodes.repository.ts';

type Db = Kysely<ProvisioningDatabase>;
type AddServer = Static<typeof AddServerBodySchema>;
export type EnrolmentToken = { token: string; expires_at: string };

/** Failed enrolments from one address (a host tries once; someone guessing tries many). */
export const enrolmentAttemptLimit: RateLimit = { max: 10, windowSeconds: 15 * 60 };

const serverNotFound = () => new AppError('not_found', 'Server not found.');

function nodeIdOf(raw: string): string {
  const id = raw.toLowerCase();
  if (!isUuid(id)) throw serverNotFound();
  return id;
}

/** 32 random bytes, base64url: shown once, kept only as its hash. */
async function issueToken(tx: Db, nodeId: string, createdBy: string, now = new Date()): Promise<EnrolmentToken> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = enrolmentExpiry(now);
  await replaceEnrolment(tx, { tokenHash: enrolmentTokenHash(token), nodeId, createdBy, expiresAt });
  return { token, expires_at: expiresAt.toISOString() };
}

/**
 * An operator adds a server: a `pending` node with the operator's settings (its address is the
 * endpoint's host), an index and subnets leased under the registry lock as a registration does,
 * and its first enrolment token. Audited without the token.
 */
export async function addNode(
  db: Db,
  input: { actorId: string; server: AddServer },
): Promise<{ node: Node; enrolment: EnrolmentToken }> {
  const { server } = input;
  const { host } = endpointParts(server.endpoint);
  return db.transaction().execute(async (tx) => {
    await lockNodeRegistry(tx);
    if (await nodeByName(tx, server.name))
      throw new AppError('name_taken', `A server named ${server.name} exists already; choose another name.`, {
        field: 'name',
      });
    const index = firstFreeNodeIndex(await usedNodeIndexes(tx));
    const subnets = nodeSubnets(index);
    const node = await insertNode(tx, {
      id: randomUUID(),
      name: server.name,
      region: server.region,
      city: server.city,
      endpoint: server.endpoint.trim(),
      ip: host,
      ssh_user: server.ssh_user ?? null,
      ssh_port: server.ssh_port ?? null,
      tags: [...new Set(server.tags)],
      capacity: server.capacity,
      status: 'pending',
      public_key: null,
      node_index: index,
      ipv4_cidr: subnets.ipv4Cidr,
      ipv6_cidr: subnets.ipv6Cidr,
      last_seen_at: null,
    });
    const enrolment = await issueToken(tx, node.id, input.actorId);
    await recordOperatorAction(tx, {
      actorId: input.actorId,
      kind: 'node.added',
      targetKind: 'node',
      targetId: node.id,
      details: { name: node.name, region: node.region, city: node.city, capacity: node.capacity, tags: node.tags },
    });
    return { node, enrolment };
  });
}

/** A new token for a server still waiting for its host; the earlier unused ones stop working. */
export async function newEnrolment(db: Db, input: { actorId: string; nodeId: string }): Promise<EnrolmentToken> {
  const nodeId = nodeIdOf(input.nodeId);
  return db.transaction().execute(async (tx) => {
    const node = await lockNode(tx, nodeId);
    if (!node) throw serverNotFound();
    const refused = newEnrolmentRefusal(node.status);
    if (refused) throw refused;
    const enrolment = await issueToken(tx, node.id, input.actorId);
    await recordOperatorAction(tx, {
      actorId: input.actorId,
      kind: 'node.enrolment_issued',
      targetKind: 'node',
      targetId: node.id,
      details: { name: node.name },
    });
    return enrolment;
  });
}

/**
 * A host exchanges its token for the node's own bus user: the token is found by its hash, must be
 * unused, unexpired and its server not retired; it is marked used in the transaction that records
 * the credential, so a second use (even at the same moment) is refused. Failed attempts count
 * against the address; a success gives its attempt back.
 */
export async function enrolNode(
  db: Db,
  busUsers: NodeBusUsers,
  input: { token: string; agent_version?: string | undefined; address_key: string },
): Promise<EnrolmentAnswer> {
  const attempt = await takeRateLimited(
    db,
    [{ key: `enrol:address:${input.address_key}`, limit: enrolmentAttemptLimit }],
    (wait) => `Too many enrolment attempts from this address. Try again in ${wait}.`,
  );
  const tokenHash = enrolmentTokenHash(input.token);
  const { node, creds } = await db.transaction().execute(async (tx) => {
    const enrolment = await lockEnrolment(tx, tokenHash);
    const node = enrolment ? await lockNode(tx, enrolment.node_id) : undefined;
    const now = new Date();
    const refused = enrolmentRefusal(enrolment && node ? { ...enrolment, node_status: node.status } : undefined, now);
    if (refused) throw refused;
    const identity = await busUsers.issue(node!.name);
    await recordCredential(tx, node!.id, identity.publicKey);
    await markEnrolmentUsed(tx, tokenHash, now);
    if (input.agent_version)
      await tx.updateTable('nodes').set({ agent_version: input.agent_version }).where('id', '=', node!.id).execute();
    return { node: node!, creds: identity.creds };
  });
  await giveBackRateEvents(db, attempt);
  return {
    node: {
      name: node.name,
      region: node.region,
      city: node.city,
      endpoint: node.endpoint,
      listen_port: endpointParts(node.endpoint).port,
      tags: node.tags,
      ip: node.ip,
    },
    bus: busUsers.busFor(creds),
  };
}

/**
 * Retires a server with no devices on it (a drain moves them first): retired and draining, the
 * peers moved or rotated devices left on it gone, its unused tokens deleted, and every bus
 * credential it was issued revoked. The revocation is pushed to the servers before the
 * transaction commits: if the bus does not take it, nothing changes and the operator is told;
 * pushes wait for each other (an advisory lock), so a later push never lacks an earlier one's keys.
 */
export async function retireNode(
  db: Db,
  busUsers: NodeBusUsers,
  input: { actorId: string; nodeId: string },
): Promise<Node> {
  const nodeId = nodeIdOf(input.nodeId);
  return db.transaction().execute(async (tx) => {
    const before = await lockNode(tx, nodeId);
    if (!before) throw serverNotFound();
    if (before.status === 'retired') return before;
    const refused = retirementRefusal(await devicesOnNode(tx, nodeId));
    if (refused) throw refused;
    const now = new Date();
    const node = await markNodeRetired(tx, nodeId, now);
    await deleteUnusedEnrolments(tx, nodeId);
    const revoked = await revokeNodeCredentials(tx, nodeId, now);
    if (revoked.length > 0) {
      await lockName(tx, 'bus-account-revocations');
      await busUsers.pushRevocations(await revokedCredentials(tx));
    }
    await recordOperatorAction(tx, {
      actorId: input.actorId,
      kind: 'node.retired',
      targetKind: 'node',
      targetId: nodeId,
      details: { name: node.name, was: before.status, credentials_revoked: revoked.length },
    });
    return node;
  });
}
