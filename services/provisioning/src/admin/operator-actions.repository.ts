import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { OperatorActionsTable, ProvisioningDatabase } from '../database.ts';

/** What an operator did to a device or a node, in the console's audit (`operator_actions`). */
export async function recordOperatorAction(
  tx: Kysely<ProvisioningDatabase>,
  action: {
    actorId: string;
    kind: string;
    targetKind: OperatorActionsTable['target_kind'];
    targetId: string;
    details: unknown;
  },
): Promise<void> {
  await tx
    .insertInto('operator_actions')
    .values({
      id: randomUUID(),
      actor_id: action.actorId,
      kind: action.kind,
      target_kind: action.targetKind,
      target_id: action.targetId,
      details: JSON.stringify(action.details),
    })
    .execute();
}
