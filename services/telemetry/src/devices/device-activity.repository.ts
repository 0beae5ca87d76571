import type { Kysely } from 'kysely';
import type { TelemetryDatabase } from '../database.ts';

type Db = Kysely<TelemetryDatabase>;

/** Records a device on or off as of `at`, unless a newer event about it was recorded already. */
export async function recordActivity(tx: Db, input: { deviceId: string; isActive: boolean; at: string }) {
  await tx
    .insertInto('device_activity')
    .values({ device_id: input.deviceId, is_active: input.isActive, changed_at: input.at })
    .onConflict((oc) =>
      oc
        .column('device_id')
        .doUpdateSet({ is_active: input.isActive, changed_at: input.at })
        .where('device_activity.changed_at', '<', new Date(input.at)),
    )
    .execute();
}

export async function forgetActivity(tx: Db, deviceId: string): Promise<void> {
  await tx.deleteFrom('device_activity').where('device_id', '=', deviceId).execute();
}
