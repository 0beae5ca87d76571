/**
 * Where a drain sends the devices of a drained node, as functions of data: another node of the
 * same region that takes devices now (enrolled, reporting, not drained; `isNodeUp`) and has room.
 */

/** A node a drained node's devices may go to, with the devices on it now (every one counts against its capacity). */
export type DrainTarget = { id: string; tags: string[]; devices: number; capacity: number };

/** A device to move: whether its plan is Gaming (it goes to a gaming-tagged node when one has room). */
export type DeviceToMove = { id: string; gaming: boolean };

const hasRoom = (target: DrainTarget) => target.devices < target.capacity;
const ratio = (target: DrainTarget) => target.devices / target.capacity;

/**
 * The target with room and the lowest load (devices over capacity); for a Gaming device the
 * least-loaded gaming-tagged one when one has room, else any. Ties go to the node listed first
 * (the oldest), so drains are stable. None with room: undefined (the device is held).
 */
export function chooseDrainTarget(targets: DrainTarget[], gaming: boolean): DrainTarget | undefined {
  const open = targets.filter(hasRoom);
  const gamingOpen = gaming ? open.filter((t) => t.tags.includes('gaming')) : [];
  const pool = gamingOpen.length > 0 ? gamingOpen : open;
  let best: DrainTarget | undefined;
  for (const target of pool) if (!best || ratio(target) < ratio(best)) best = target;
  return best;
}

/**
 * A target for each device of a batch, in order, each choice counting the devices placed before
 * it (so one batch spreads over the region and fills no node past its capacity); null where no
 * node has room.
 */
export function planDrainMoves(
  devices: DeviceToMove[],
  targets: DrainTarget[],
): Array<{ deviceId: string; targetId: string | null }> {
  const tally = targets.map((target) => ({ ...target }));
  return devices.map((device) => {
    const target = chooseDrainTarget(tally, device.gaming);
    if (target) target.devices += 1;
    return { deviceId: device.id, targetId: target?.id ?? null };
  });
}
