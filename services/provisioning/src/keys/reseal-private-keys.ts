import type { Kysely } from 'kysely';
import type { SealingKeys } from '@qw/wireguard';
import type { ExpressionBuilder, Updateable } from 'kysely';
import type { DevicesTable, ProvisioningDatabase } from '../database.ts';
import { resealPresharedKey } from './preshared-keys.ts';

type Db = Kysely<ProvisioningDatabase>;

/** A device whose private key or preshared key (issue #25) is sealed by another key than `keyId`, or names none. */
function sealedByOthers(eb: ExpressionBuilder<ProvisioningDatabase, 'devices'>, keyId: string) {
  return eb.or([
    eb.and([
      eb('private_key_sealed', 'is not', null),
      eb.or([eb('private_key_sealed_by', 'is', null), eb('private_key_sealed_by', '<>', keyId)]),
    ]),
    eb.and([
      eb('preshared_key_sealed', 'is not', null),
      eb.or([eb('preshared_key_sealed_by', 'is', null), eb('preshared_key_sealed_by', '<>', keyId)]),
    ]),
  ]);
}

/** The devices with a key sealed by another key than `keyId` (or naming none): what is left to re-seal. */
export async function countSealedByOthers(db: Db, keyId: string): Promise<number> {
  const row = await db
    .selectFrom('devices')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where((eb) => sealedByOthers(eb, keyId))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export type ResealedBatch = {
  /** Rows re-sealed with the current key in this batch. */
  resealed: number;
  /** Devices whose key no held key opens (left as they are, and reported). */
  unopened: string[];
  /** The last device id the batch looked at: the next batch starts after it; null when none was left. */
  last: string | null;
};

/**
 * Re-seals up to `size` private keys with the current key, in one transaction: the rows after
 * `after` (device id order) still sealed by another key, locked while they change, so a key
 * rotation provisioning makes meanwhile waits or is waited for, and a row it re-made with the
 * current key is no longer picked. A batch commits or leaves nothing; a run stopped between two
 * batches is resumed by running again, which finds only the rows not yet done.
 */
export async function resealBatch(
  db: Db,
  vault: SealingKeys,
  after: string | null,
  size: number,
): Promise<ResealedBatch> {
  return db.transaction().execute(async (tx) => {
    let query = tx
      .selectFrom('devices')
      .select(['id', 'private_key_sealed', 'private_key_sealed_by', 'preshared_key_sealed', 'preshared_key_sealed_by'])
      .where((eb) => sealedByOthers(eb, vault.currentId))
      .orderBy('id')
      .limit(size)
      .forUpdate();
    if (after !== null) query = query.where('id', '>', after);
    const rows = await query.execute();
    const unopened: string[] = [];
    let resealed = 0;
    for (const row of rows) {
      let changes: Updateable<DevicesTable>;
      try {
        const sealed = row.private_key_sealed
          ? vault.seal(vault.open(row.private_key_sealed, row.private_key_sealed_by, row.id), row.id)
          : null;
        changes = {
          ...(sealed ? { private_key_sealed: sealed.sealed, private_key_sealed_by: sealed.keyId } : {}),
          ...resealPresharedKey(vault, row.id, row),
        };
      } catch {
        unopened.push(row.id);
        continue;
      }
      await tx.updateTable('devices').set(changes).where('id', '=', row.id).execute();
      resealed += 1;
    }
    return { resealed, unopened, last: rows.at(-1)?.id ?? null };
  });
}

/**
 * Every private key sealed by another key than the current one, re-sealed batch by batch
 * (`resealBatch`), `pauseMs` between batches so the database keeps serving; `onBatch` hears each
 * batch and what is left. Answers the totals and what is still left afterwards (only the rows no
 * held key opens, unless provisioning sealed with an older key meanwhile).
 */
export async function resealPrivateKeys(
  db: Db,
  vault: SealingKeys,
  options: { batchSize: number; pauseMs?: number; onBatch?: (batch: ResealedBatch, left: number) => void },
): Promise<{ resealed: number; unopened: string[]; left: number }> {
  let after: string | null = null;
  let resealed = 0;
  const unopened: string[] = [];
  for (;;) {
    const batch = await resealBatch(db, vault, after, options.batchSize);
    if (batch.last === null) break;
    after = batch.last;
    resealed += batch.resealed;
    unopened.push(...batch.unopened);
    options.onBatch?.(batch, await countSealedByOthers(db, vault.currentId));
    if (options.pauseMs) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
  }
  return { resealed, unopened, left: await countSealedByOthers(db, vault.currentId) };
}
