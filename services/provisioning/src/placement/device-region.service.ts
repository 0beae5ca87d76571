import type { Kysely } from 'kysely';
import { deviceRateLimits, type Caller, type DeviceView, type RegionChoice } from '@qw/contracts';
import { takeRateLimited } from '@qw/platform/limits';
import type { ProvisioningDatabase } from '../database.ts';
import { deviceFor } from '../devices/device-for.ts';
import { validCountry } from '../devices/device-rules.ts';
import { viewOf } from '../devices/device-view.ts';
import { updateDevice } from '../devices/devices.repository.ts';
import { activePlanOf } from '../entitlements/entitlements.repository.ts';
import { nodeOf } from '../nodes/nodes.repository.ts';
import { moveDevice } from './move-device.ts';
import { fitsChoice } from './placement-rules.ts';
import { nodeForPlacement } from './placement.service.ts';

export type DeviceRegionDeps = {
  db: Kysely<ProvisioningDatabase>;
  mailQueue: { wake(): Promise<unknown> };
};

/**
 * A device's region, chosen on its row (personal and organization devices; who may rename it
 * may). The choice is kept; a device whose server does not fit it (another region; for Automatic
 * with a country, not the region nearest it) moves to the node placement picks for the choice,
 * unless that node is in the region it is in already (Automatic fell back to it). A chosen region
 * with no room is refused (409 `region_full`) and nothing changes; so is an 11th move of the
 * device within an hour (429: each move mails its person and leaves a peer behind).
 */
export async function changeDeviceRegion(
  deps: DeviceRegionDeps,
  caller: Caller,
  input: { device_id: string; region: RegionChoice; country?: string | undefined },
): Promise<{ device: DeviceView; moved: boolean }> {
  const country = input.country === undefined ? undefined : validCountry(input.country);
  const result = await deps.db.transaction().execute(async (tx) => {
    const { device } = await deviceFor(tx, caller, input.device_id, 'change-region');
    const choice = { region_choice: input.region, country: country === undefined ? device.country : country };
    let current = device;
    let moved = false;
    const node = device.node_id ? await nodeOf(tx, device.node_id) : undefined;
    if (node && !fitsChoice(node.region, choice.region_choice, choice.country)) {
      const owner = device.org_id ? { userId: null, orgId: device.org_id } : { userId: device.user_id, orgId: null };
      const targetId = await nodeForPlacement(tx, {
        plan: await activePlanOf(tx, owner),
        choice: choice.region_choice,
        country: choice.country,
      });
      const target = await nodeOf(tx, targetId);
      if (target.region !== node.region) {
        await takeRateLimited(
          tx,
          [{ key: `devices:move:${device.id}`, limit: deviceRateLimits.moves }],
          (wait) => `This device changed servers several times already. Try again in ${wait}.`,
        );
        ({ device: current, moved } = await moveDevice(tx, device, targetId, { actorId: caller.userId }));
      }
    }
    const after = await updateDevice(tx, current.id, choice);
    return { after, moved };
  });
  if (result.moved) void deps.mailQueue.wake().catch(() => undefined);
  return { device: await viewOf(deps.db, result.after), moved: result.moved };
}
