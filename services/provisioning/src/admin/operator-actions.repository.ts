import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { OperatorActionsTable, ProvisioningDatabase } from '../database.ts';

/** What an operator did to a device or a node, in the console's audit (`operator_actions`); answers its id. */
export async function recordOperatorAction(
  tx: Kysely<ProvisioningDatabase>,
  action: {
    actorId: string;
    kind: string;
    targetKind: OperatorActionsTable['target_kind'];
    targetId: string;
    details: unknown;
  },
): Promise<string> {
  const id = randomUUID();
  await tx
    .insertInto('operator_actions')
    .values({
      id,
      actor_id: action.actorId,
      kind: action.kind,
      target_kind: action.targetKind,
      target_id: action.targetId,
      details: JSON.stringify(action.details),
    })
    .execute();
  return id;
}

/** Adds what came of an action after its transaction (a drain's devices moved and held) to its details. */
export async function addOperatorActionDetails(
  db: Kysely<ProvisioningDatabase>,
  id: string,
  details: Record<string, unknown>,
): Promise<void> {
  await db
    .updateTable('operator_actions')
    .set({ details: sql`details || ${JSON.stringify(details)}::jsonb` })
    .where('id', '=', id)
    .execute();
}
