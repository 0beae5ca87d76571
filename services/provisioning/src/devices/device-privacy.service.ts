import type { Kysely } from 'kysely';
import type { Caller, DevicePrivacyInput, DeviceView } from '@qw/contracts';
import type { ProvisioningDatabase } from '../database.ts';
import { recordPrivacyChanged } from '../device-events/device-events.ts';
import { deviceFor } from './device-for.ts';
import { privacyAfter, samePrivacy } from './device-privacy-rules.ts';
import { viewOf } from './device-view.ts';
import { updateDevice } from './devices.repository.ts';

/**
 * A device's tunnel privacy, changed on its row (who may rename it may: its person, and an owner
 * or admin of its organization). Nothing on the node changes: the choice is in the config (the DNS
 * line's resolver address selects the blocking policy, AllowedIPs the split), so the person
 * downloads it again; `config_changed` says whether they need to. A refusal changes nothing.
 */
export async function setDevicePrivacy(
  db: Kysely<ProvisioningDatabase>,
  caller: Caller,
  input: DevicePrivacyInput & { device_id: string },
): Promise<{ device: DeviceView; config_changed: boolean }> {
  const result = await db.transaction().execute(async (tx) => {
    const { device } = await deviceFor(tx, caller, input.device_id, 'change-privacy');
    const after = privacyAfter(device, input);
    if (samePrivacy(device, after)) return { device, changed: false };
    const updated = await updateDevice(tx, device.id, after);
    await recordPrivacyChanged(tx, updated, caller.userId);
    return { device: updated, changed: true };
  });
  return { device: await viewOf(db, result.device), config_changed: result.changed };
}
