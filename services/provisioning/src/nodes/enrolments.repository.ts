import type { Kysely } from 'kysely';
import type { Node, ProvisioningDatabase } from '../database.ts';

type Db = Kysely<ProvisioningDatabase>;

/** A new token for the node, kept by its hash; the node's earlier unused tokens are deleted (they stop working). */
export async function replaceEnrolment(
  tx: Db,
  values: { tokenHash: string; nodeId: string; createdBy: string; expiresAt: Date },
): Promise<void> {
  await tx.deleteFrom('node_enrolments').where('node_id', '=', values.nodeId).where('used_at', 'is', null).execute();
  await tx
    .insertInto('node_enrolments')
    .values({
      token_hash: values.tokenHash,
      node_id: values.nodeId,
      created_by: values.createdBy,
      expires_at: values.expiresAt,
    })
    .execute();
}

/** The enrolment a token's hash names, locked for the transaction (two hosts with one token: the second waits, then finds it used). */
export function lockEnrolment(tx: Db, tokenHash: string) {
  return tx
    .selectFrom('node_enrolments')
    .select(['token_hash', 'node_id', 'expires_at', 'used_at'])
    .where('token_hash', '=', tokenHash)
    .forUpdate()
    .executeTakeFirst();
}

export async function markEnrolmentUsed(tx: Db, tokenHash: string, at: Date): Promise<void> {
  await tx.updateTable('node_enrolments').set({ used_at: at }).where('token_hash', '=', tokenHash).execute();
}

/** A retired node's tokens that were never used: they die with it. */
export async function deleteUnusedEnrolments(tx: Db, nodeId: string): Promise<void> {
  await tx.deleteFrom('node_enrolments').where('node_id', '=', nodeId).where('used_at', 'is', null).execute();
}

export async function recordCredential(tx: Db, nodeId: string, userPublicKey: string): Promise<void> {
  await tx.insertInto('node_credentials').values({ node_id: nodeId, user_public_key: userPublicKey }).execute();
}

/** Marks every unrevoked credential of the node revoked now; answers their user keys. */
export async function revokeNodeCredentials(tx: Db, nodeId: string, at: Date): Promise<string[]> {
  const rows = await tx
    .updateTable('node_credentials')
    .set({ revoked_at: at })
    .where('node_id', '=', nodeId)
    .where('revoked_at', 'is', null)
    .returning('user_public_key')
    .execute();
  return rows.map((row) => row.user_public_key);
}

/** Every credential ever revoked, by user key, in seconds (as an account JWT lists revocations). */
export async function revokedCredentials(db: Db): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('node_credentials')
    .select(['user_public_key', 'revoked_at'])
    .where('revoked_at', 'is not', null)
    .execute();
  return Object.fromEntries(
    rows.map((row) => [row.user_public_key, Math.floor(new Date(row.revoked_at!).getTime() / 1000)]),
  );
}

/** Devices whose node this is, whatever their state (a suspended one comes back to its node). */
export async function devicesOnNode(db: Db, nodeId: string): Promise<number> {
  const row = await db
    .selectFrom('devices')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('node_id', '=', nodeId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The node at the end of its life: retired, draining, and without the peers moved or rotated devices left on it. */
export async function markNodeRetired(tx: Db, nodeId: string, at: Date): Promise<Node> {
  await tx.deleteFrom('moved_peers').where('node_id', '=', nodeId).execute();
  await tx.deleteFrom('retiring_keys').where('node_id', '=', nodeId).execute();
  return tx
    .updateTable('nodes')
    .set({ status: 'retired', retired_at: at, draining: true })
    .where('id', '=', nodeId)
    .returningAll()
    .executeTakeFirstOrThrow();
}
