import {
  adminAddNodeRpc,
  adminNewEnrolmentRpc,
  adminRetireNodeRpc,
  enrolNodeRpc,
  adminDeviceActionRpc,
  adminDeviceCountRpc,
  adminDeviceNamesRpc,
  adminDevicesRpc,
  adminDrainNodeRpc,
  adminOperatorActionsRpc,
  adminServersRpc,
  advanceProvisioningClockRpc,
  AppError,
  changeDeviceRegionRpc,
  configByLinkRpc,
  copiedMembershipRpc,
  createDeviceRpc,
  createOrgDeviceRpc,
  deviceOverviewRpc,
  issueConfigLinksRpc,
  desiredPeersRpc,
  deviceConfigRpc,
  devicePeerInfoRpc,
  listDevicesRpc,
  listOrgDevicesRpc,
  orgDeviceOverviewRpc,
  publicServersRpc,
  egressServersRpc,
  registerNodeRpc,
  reportNodeRpc,
  removeDeviceRpc,
  requestKeyRpc,
  setKeyRotationRpc,
  setDevicePrivacyRpc,
  updateDeviceRpc,
} from '@qw/contracts';
import { advanceClock, type Clock } from '../clock.ts';
import { endpoint, type BusConnection, type RpcClient, type RpcEndpoint } from '@qw/platform/bus';
import type { Kysely } from 'kysely';
import type { ProvisioningDatabase } from '../database.ts';
import type { DevicesService } from '../devices/devices.service.ts';
import type { KeysService } from '../keys/keys.service.ts';
import type { OrgDevicesService } from '../org-devices/org-devices.service.ts';
import type { ConfigDelivery } from '../config-delivery/config-delivery.service.ts';
import type { FleetAdmin } from '../admin/fleet.service.ts';
import type { SealingKeys } from '@qw/wireguard';
import { desiredPeers, registerNode } from '../nodes/nodes.service.ts';
import { reportNode } from '../nodes/node-report.ts';
import { enrolNode } from '../nodes/node-lifecycle.service.ts';
import type { NodeBusUsers } from '../nodes/node-bus-users.ts';
import { copiedRole } from '../organizations/organizations.service.ts';
import { endExpiredMovedPeers } from '../placement/moved-peers.ts';
import { egressServers, publicServers } from '../servers/public-servers.ts';
import { setDevicePrivacy } from '../devices/device-privacy.service.ts';
import { changeDeviceRegion } from '../placement/device-region.service.ts';

export function provisioningEndpoints(deps: {
  db: Kysely<ProvisioningDatabase>;
  bus: BusConnection;
  rpc: RpcClient;
  devices: DevicesService;
  keys: KeysService;
  orgDevices: OrgDevicesService;
  configDelivery: ConfigDelivery;
  fleet: FleetAdmin;
  busUsers: NodeBusUsers;
  dns: string[];
  clock: Clock;
  mailQueue: { wake(): Promise<unknown> };
  vault: SealingKeys;
}): RpcEndpoint[] {
  const { devices, keys, orgDevices, configDelivery, db, fleet, rpc } = deps;
  return [
    // The operator console (platform admins only; each checks the caller's admin flag itself).
    endpoint(adminDevicesRpc, (data, caller) => fleet.listDevices(caller, data)),
    endpoint(adminDeviceCountRpc, (data, caller) => fleet.deviceCount(caller, data)),
    endpoint(adminDeviceActionRpc, (data, caller) => fleet.deviceAction(caller, data)),
    endpoint(adminServersRpc, (data, caller) => fleet.servers(caller, data)),
    endpoint(adminDrainNodeRpc, (data, caller) => fleet.drain(caller, data)),
    endpoint(adminAddNodeRpc, (data, caller) => fleet.addServer(caller, data)),
    endpoint(adminNewEnrolmentRpc, (data, caller) => fleet.newEnrolment(caller, data)),
    endpoint(adminRetireNodeRpc, (data, caller) => fleet.retire(caller, data)),
    // A host with its one-time token (public: the token is the proof, checked and spent here).
    endpoint(enrolNodeRpc, (data) => enrolNode(db, deps.busUsers, data)),
    endpoint(adminDeviceNamesRpc, (data, caller) => fleet.deviceNames(caller, data.device_ids)),
    endpoint(adminOperatorActionsRpc, (data, caller) => fleet.operatorActions(caller, data)),
    // The public /servers page (no caller).
    endpoint(publicServersRpc, () => publicServers(db)),
    endpoint(egressServersRpc, () => egressServers(db)),
    endpoint(listDevicesRpc, async (_data, caller) => ({ devices: await devices.list(caller) })),
    endpoint(deviceOverviewRpc, (_data, caller) => devices.overview(caller)),
    endpoint(createDeviceRpc, async (data, caller) => ({ device: await devices.create(caller, data) })),
    endpoint(listOrgDevicesRpc, (data, caller) => {
      const { org_id, ...query } = data;
      return orgDevices.listOrganization(caller, org_id, query);
    }),
    endpoint(orgDeviceOverviewRpc, (data, caller) => orgDevices.organizationOverview(caller, data.org_id)),
    endpoint(copiedMembershipRpc, async (data, caller) => ({ role: await copiedRole(db, rpc, caller, data) })),
    endpoint(createOrgDeviceRpc, async (data, caller) => ({
      device: await orgDevices.createInOrganization(caller, data),
    })),
    endpoint(updateDeviceRpc, async (data, caller) => ({ device: await devices.update(caller, data) })),
    endpoint(removeDeviceRpc, async (data, caller) => {
      await devices.remove(caller, data.device_id);
      return {};
    }),
    endpoint(requestKeyRpc, (data, caller) => keys.requestKey(caller, data)),
    endpoint(setKeyRotationRpc, async (data, caller) => ({ device: await keys.setKeyRotation(caller, data) })),
    endpoint(changeDeviceRegionRpc, (data, caller) =>
      changeDeviceRegion({ db, mailQueue: deps.mailQueue }, caller, data),
    ),
    endpoint(setDevicePrivacyRpc, (data, caller) => setDevicePrivacy(db, caller, data)),
    // Tests only (the admin connection asks; the gateway may not): move the clock, run what is due.
    endpoint(advanceProvisioningClockRpc, async (data) => {
      const now = await advanceClock(db, deps.clock, data.hours);
      await keys.runKeyRotations({ waitForLocked: true });
      await endExpiredMovedPeers(db, deps.clock);
      return { now: now.toISOString() };
    }),
    endpoint(deviceConfigRpc, (data, caller) => configDelivery.config(caller, data.device_id)),
    endpoint(issueConfigLinksRpc, (data, caller) => configDelivery.issueConfigLinks(caller, data.device_id)),
    endpoint(configByLinkRpc, (data) => configDelivery.configByLink(data)),
    endpoint(devicePeerInfoRpc, (data, caller) => configDelivery.peerInfo(caller, data.device_id)),
    // Node agents only: the node is the `{node}` of the subject, which NATS lets no one else use.
    endpoint(registerNodeRpc, (data, _caller, { node }) =>
      registerNode(deps.bus, db, { ...data, name: nodeName(node) }, deps.dns),
    ),
    endpoint(desiredPeersRpc, (data, _caller, { node }) => desiredPeers(db, deps.vault, nodeName(node), data)),
    endpoint(reportNodeRpc, (data, _caller, { node }) => reportNode(db, nodeName(node), data)),
  ];
}

function nodeName(node: string | undefined): string {
  if (!node) throw new AppError('forbidden', 'Only a node agent may ask this.');
  return node;
}
