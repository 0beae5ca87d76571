import {
  createDeviceRpc, desiredPeersRpc, deviceConfigRpc, devicePeerInfoRpc, listDevicesRpc, registerNodeRpc, removeDeviceRpc, requestKeyRpc, updateDeviceRpc,
} from '@qw/contracts';
import { endpoint, type RpcEndpoint } from '@qw/platform/bus';
import type { Kysely } from 'kysely';
import type { ProvisioningDatabase } from '../database.ts';
import type { DevicesService } from '../devices/devices.service.ts';
import { desiredPeers, registerNode } from '../nodes/nodes.service.ts';

export function provisioningEndpoints(deps: { db: Kysely<ProvisioningDatabase>; devices: DevicesService; dns: string[] }): RpcEndpoint[] {
  const { devices, db } = deps;
  return [
    endpoint(listDevicesRpc, async (_data, caller) => ({ devices: await devices.list(caller) })),
    endpoint(createDeviceRpc, async (data, caller) => ({ device: await devices.create(caller, data) })),
    endpoint(updateDeviceRpc, async (data, caller) => ({ device: await devices.update(caller, data) })),
    endpoint(removeDeviceRpc, async (data, caller) => {
      await devices.remove(caller, data.device_id);
      return {};
    }),
    endpoint(requestKeyRpc, (data, caller) => devices.requestKey(caller, data)),
    endpoint(deviceConfigRpc, (data, caller) => devices.config(caller, data.device_id)),
    endpoint(devicePeerInfoRpc, (data, caller) => devices.peerInfo(caller, data.device_id)),
    // Node agents: on the bus only (no HTTP route); NATS permissions keep them to these subjects.
    endpoint(registerNodeRpc, (data) => registerNode(db, data, deps.dns)),
    endpoint(desiredPeersRpc, (data) => desiredPeers(db, data.node_id, data.after, data.limit)),
  ];
}
