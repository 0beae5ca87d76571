import path from 'node:path';
import { SealingKeys } from '@qw/wireguard';
import {
  adminPersonDevicesRpc,
  exportProvisioningDataRpc,
  provisioningEvents,
  requireAdmin,
  requireUserId,
} from '@qw/contracts';
import { endpoint } from '@qw/platform/bus';
import { userVerifiedConsumer } from './consumers/user-verified.consumer.ts';
import { createMailer, MailQueue, type Mailer, type MailRenderer } from '@qw/platform/mailer';
import type { ServiceContext, ServiceDefinition } from '@qw/platform';
import type { ProvisioningDatabase } from './database.ts';
import { DevicesService } from './devices/devices.service.ts';
import { KeysService } from './keys/keys.service.ts';
import { OrgDevicesService } from './org-devices/org-devices.service.ts';
import { ConfigDelivery } from './config-delivery/config-delivery.service.ts';
import { configMailKind, movedMailKind } from './device-events/config-mail-job.ts';
import { endExpiredMovedPeers } from './placement/moved-peers.ts';
import { realClock, testClock, type Clock } from './clock.ts';
import { provisioningEndpoints } from './rpc/provisioning.rpc.ts';
import { FleetAdmin } from './admin/fleet.service.ts';
import { Drains } from './drain/drains.service.ts';
import { personDevices } from './admin/admin-person-devices.ts';
import { subscriptionConsumers } from './consumers/subscription-changed.consumer.ts';
import { memberJoinedConsumer } from './consumers/member-joined.consumer.ts';
import { memberRoleChangedConsumer } from './consumers/member-role-changed.consumer.ts';
import { memberLeftConsumer } from './consumers/member-left.consumer.ts';
import { organizationStatusChangedConsumer } from './consumers/organization-status-changed.consumer.ts';
import { handshakesObservedConsumer } from './consumers/handshakes-observed.consumer.ts';
import { userDeletedConsumer } from './consumers/user-deleted.consumer.ts';
import { userSuspensionChangedConsumer } from './consumers/user-suspension-changed.consumer.ts';
import { exportDevices } from './devices/account-devices.ts';
import { nodeGauges } from './nodes/node-metrics.ts';
import { NodeBusUsers } from './nodes/node-bus-users.ts';

export type ProvisioningSettings = {
  PRIVATE_KEY_ENCRYPTION_KEY: string;
  /** During a rotation of the sealing key: the key rows not yet re-sealed still open with. */
  PRIVATE_KEY_ENCRYPTION_KEY_PREVIOUS?: string | undefined;
  /** Resolvers that replace each node's own in configs (empty or unset: the node's, with the device's blocking). */
  VPN_DNS?: string | undefined;
  MAIL_URL?: string | undefined;
  MAIL_FROM: string;
  MAIL_DIR: string;
  /** Lets the advance-clock RPC move provisioning's time (tests only; refused in production). */
  PROVISIONING_TEST_CLOCK?: boolean | undefined;
  NODE_ENV?: string | undefined;
  /** The bus identity folder (keys.json, revocations.json): node users are issued and revoked with it. */
  BUS_IDENTITY_DIR?: string | undefined;
  /** The bus URL enrolled nodes are told (NATS_URL when not set). */
  NODE_BUS_URL?: string | undefined;
  /** The bus as provisioning reaches it, for revocations and what enrolled nodes are told. */
  NATS_URL?: string | undefined;
  NATS_CA_FILE?: string | undefined;
  BUS_NAMESPACE?: string | undefined;
};

/**
 * The provisioning service: personal and organization devices, keys, address leases,
 * configuration files and mails, entitlements kept from billing events, organizations and their
 * members kept from identity events, and the registry of WireGuard nodes.
 */
export function provisioningService(
  settings: ProvisioningSettings,
  options: { mailer?: Mailer } = {},
): ServiceDefinition<ProvisioningDatabase> {
  const dns = (settings.VPN_DNS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  let parts:
    | {
        devices: DevicesService;
        orgDevices: OrgDevicesService;
        keys: KeysService;
        configDelivery: ConfigDelivery;
        mailQueue: MailQueue;
        clock: Clock;
        drains: Drains;
        vault: SealingKeys;
      }
    | undefined;
  /** The service's parts, made once from the running context (its RPCs and its tasks share them). */
  const partsFor = ({ db, rpc, logger }: ServiceContext<ProvisioningDatabase>) => {
    if (parts) return parts;
    const mailer =
      options.mailer ??
      createMailer({
        mailUrl: settings.MAIL_URL,
        from: settings.MAIL_FROM,
        outboxDir: path.resolve(settings.MAIL_DIR),
        logger,
      });
    const renderers: Record<string, MailRenderer> = {};
    const mailQueue = new MailQueue({ db, mailer, logger, renderers });
    const vault = new SealingKeys(settings.PRIVATE_KEY_ENCRYPTION_KEY, settings.PRIVATE_KEY_ENCRYPTION_KEY_PREVIOUS);
    const clock = settings.PROVISIONING_TEST_CLOCK && settings.NODE_ENV !== 'production' ? testClock(db) : realClock;
    const devices = new DevicesService({ db, rpc, mailQueue, logger, vault });
    const orgDevices = new OrgDevicesService({ db, rpc, mailQueue, logger, vault });
    const keys = new KeysService({ db, mailQueue, logger, vault, clock });
    const configDelivery = new ConfigDelivery({ db, rpc, vault, dns });
    renderers[configMailKind] = (payload) => configDelivery.renderConfigMail(payload);
    renderers[movedMailKind] = (payload) => configDelivery.renderMovedMail(payload);
    const drains = new Drains({ db, logger, afterMoves: () => void mailQueue.wake().catch(() => undefined) });
    parts = { devices, orgDevices, keys, configDelivery, mailQueue, clock, drains, vault };
    return parts;
  };
  return {
    name: 'provisioning',
    version: '0.4.0',
    migrations: new URL('../migrations/', import.meta.url),
    events: provisioningEvents,
    rpc: (context) => {
      const { devices, orgDevices, keys, configDelivery, clock, mailQueue, drains, vault } = partsFor(context);
      const busUsers = new NodeBusUsers(
        {
          identityDir: settings.BUS_IDENTITY_DIR,
          natsUrl: settings.NATS_URL ?? 'nats://127.0.0.1:4222',
          caFile: settings.NATS_CA_FILE,
          nodeBusUrl: settings.NODE_BUS_URL,
          namespace: settings.BUS_NAMESPACE,
        },
        context.logger,
      );
      const fleet = new FleetAdmin({
        db: context.db,
        readDb: context.readDb,
        rpc: context.rpc,
        devices,
        busUsers,
        drains,
        logger: context.logger,
      });
      return [
        ...provisioningEndpoints({
          db: context.db,
          bus: context.bus,
          rpc: context.rpc,
          devices,
          orgDevices,
          keys,
          configDelivery,
          fleet,
          busUsers,
          dns,
          clock,
          mailQueue,
          vault,
        }),
        endpoint(exportProvisioningDataRpc, (_data, caller) =>
          exportDevices(context.db, context.rpc, requireUserId(caller)),
        ),
        // The operator console's page of one person: platform admins only.
        endpoint(adminPersonDevicesRpc, (data, caller) => {
          requireAdmin(caller);
          return personDevices(context.db, context.rpc, data.user_id);
        }),
      ];
    },
    consumers: (context) => [
      {
        ...userVerifiedConsumer,
        afterCommit: () =>
          void partsFor(context)
            .mailQueue.wake()
            .catch(() => undefined),
      },
      ...subscriptionConsumers,
      memberJoinedConsumer,
      memberRoleChangedConsumer,
      memberLeftConsumer,
      organizationStatusChangedConsumer,
      handshakesObservedConsumer,
      userDeletedConsumer,
      userSuspensionChangedConsumer,
    ],
    tasks: (context) => {
      const { keys, configDelivery, mailQueue, clock, drains } = partsFor(context);
      return [
        { name: 'send-queued-mail', everyMs: 2_000, run: async () => void (await mailQueue.wake()) },
        { name: 'prune-sent-mail', everyMs: 3600_000, run: () => mailQueue.prune() },
        { name: 'prune-config-links', everyMs: 15 * 60_000, run: () => configDelivery.pruneConfigLinks() },
        // Scheduled key rotations and ended grace periods; state is in Postgres, so a restart loses none.
        {
          name: 'rotate-due-keys',
          everyMs: 60_000,
          rule: 'each-period',
          run: async () => void (await keys.runKeyRotations()),
        },
        // Devices still on drained nodes: held ones move once a node of their region has room, and
        // a drain's moves cut short (a restart) are finished.
        { name: 'move-drained-devices', everyMs: 15_000, run: () => drains.retryAll() },
        // Peers moved devices left on their old nodes, past their grace period (those seen through
        // their new node went already, on telemetry's handshakes).
        {
          name: 'end-moved-peers',
          everyMs: 60_000,
          rule: 'each-period',
          run: async () => void (await endExpiredMovedPeers(context.db, clock)),
        },
      ];
    },
    gauges: ({ db }) => nodeGauges(db),
  };
}
