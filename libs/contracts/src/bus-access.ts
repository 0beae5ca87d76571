import { eventCatalog } from './catalog.ts';
import { healthRpc } from './platform/health.rpc.ts';
import type { RpcContract } from './rpc.ts';
import { rpcCatalog, rpcOwner } from './rpc-catalog.ts';
import { backendServices, type BackendService } from './services.ts';
import { fillSubject, isTemplate, type SubjectParams } from './subjects.ts';
import * as analytics from './analytics/index.ts';
import * as billing from './billing/index.ts';
import * as identity from './identity/index.ts';
import * as provisioning from './provisioning/index.ts';
import * as telemetry from './telemetry/index.ts';

/**
 * Who may do what on the bus, as allow-lists: NATS has one user per service, per gateway and per
 * node agent; the server configuration (deploy/nats.conf, and the servers that `make dev` and the
 * tests run) is generated from this declaration, so a process can publish, subscribe and request
 * exactly what is written here and nothing else. The services check it again: an RPC answers
 * only the users whose `calls` name it (see `mayAsk`).
 */
export type BusAccess = {
  /** RPCs it answers: it subscribes to each subject and replies to each request once. */
  serves: readonly RpcContract[];
  /** RPCs it may ask, each named by its contract (never a wildcard: a new RPC is open to nobody). */
  calls: readonly RpcContract[];
  /** Event subjects it may publish: its own events. */
  publishes: readonly string[];
  /** Streams (by owner) it declares and keeps up to date. */
  declares: readonly string[];
  /**
   * Streams (by owner) whose consumers it makes and looks at for others, without reading them:
   * provisioning makes each node's when the node registers.
   */
  makesConsumersOn?: readonly string[];
  /**
   * Its own durable consumers (names as the service gives them), by the owner of the stream they
   * read: it may make, read and acknowledge these and no other consumer of the stream.
   */
  consumes: Readonly<Record<string, readonly string[]>>;
  /** Durable consumers made for it by someone else, which it may read but not change: `stream/durable`. */
  uses?: readonly string[];
  /** A node agent's name: fills `{node}` in the subjects above. */
  node?: string;
};

export type BusPrincipal = 'gateway' | BackendService;

/**
 * The operator's own NATS user: every right on the server (the tests' inspection, the demo seed,
 * the test clocks). Services answer it too: a user that may reconfigure every stream gains
 * nothing by being refused an answer. No service or node ever runs as it.
 */
export const operatorUser = 'admin';

function eventsOf(owner: string): string[] {
  return eventCatalog.filter((event) => event.subject.startsWith(`${owner}.`)).map((event) => event.subject);
}

function rpcsServedBy(owner: string): RpcContract[] {
  return rpcCatalog.filter((contract) => rpcOwner(contract) === owner);
}

/** The node agents' own RPCs: each node asks them in its own name, nobody else asks them. */
const nodeRpcs: readonly RpcContract[] = [
  provisioning.registerNodeRpc,
  provisioning.desiredPeersRpc,
  provisioning.reportNodeRpc,
];

/**
 * The projection generations of analytics whose durables (`analytics_g<n>_<source>`) the bus
 * lets it read: NATS permissions match whole subject tokens, so each name is listed. A rebuild
 * past the last one is refused by the server; raise it and regenerate the configuration.
 */
export const analyticsGenerationLimit = 50;

/** The durable consumer of one source (`billing`, `signups`, `visits`) for a projection generation of analytics. */
export function analyticsDurableName(generation: number, source: string): string {
  return `analytics_g${generation}_${source}`;
}

function analyticsDurables(source: string): string[] {
  return Array.from({ length: analyticsGenerationLimit }, (_, i) => analyticsDurableName(i + 1, source));
}

export const busAccess: Record<BusPrincipal, BusAccess> = {
  gateway: {
    serves: [],
    // Every route's RPC, and /api/health's round trips. Not the node agents' RPCs, the services'
    // questions to each other, or the tools of the tests and the demo (the operator asks those).
    calls: [
      identity.addAdminEmailRpc,
      identity.adminAuditRpc,
      identity.adminEmailsRpc,
      identity.adminOrganizationsRpc,
      identity.adminReactivateOrganizationRpc,
      identity.adminSuspendOrganizationRpc,
      identity.adminUsersRpc,
      identity.adminPersonRpc,
      identity.adminEndSessionsRpc,
      identity.adminResendVerificationRpc,
      identity.adminPersonSuspensionRpc,
      identity.adminPersonTestMarkRpc,
      identity.removeAdminEmailRpc,
      identity.adminPeopleCountsRpc,
      // Analytics' figures without the test customers (issue #26): their ids, sent with the read.
      identity.adminTestUserIdsRpc,
      identity.forgotPasswordRpc,
      identity.getMeRpc,
      // Each signed-in person's rights, at most a second old, for the caller assertion.
      identity.authorityRpc,
      identity.listMyOrgsRpc,
      identity.mfaConfirmRpc,
      identity.mfaDisableRpc,
      identity.mfaEnrolRpc,
      identity.refreshRpc,
      identity.resendVerificationRpc,
      identity.resetPasswordRpc,
      identity.setPasswordRpc,
      identity.signInMfaRpc,
      identity.signInRpc,
      identity.signOutRpc,
      identity.signUpRpc,
      identity.submitContactRpc,
      identity.updateProfileRpc,
      identity.verifyEmailRpc,
      identity.acceptInvitationRpc,
      identity.auditLogRpc,
      identity.changeMemberRoleRpc,
      identity.getOrganizationRpc,
      identity.inviteMemberRpc,
      identity.leaveOrganizationRpc,
      identity.listInvitationsRpc,
      identity.listOrgUsersRpc,
      identity.previewInvitationRpc,
      identity.removeMemberRpc,
      identity.renameOrganizationRpc,
      identity.revokeInvitationRpc,
      // A person's export (each service answers for its own data) and the deletion of their account.
      identity.exportIdentityDataRpc,
      identity.deleteAccountRpc,
      billing.exportBillingDataRpc,
      provisioning.exportProvisioningDataRpc,
      billing.adminUserPlansRpc,
      billing.adminPersonBillingRpc,
      billing.adminRefundLatestRpc,
      billing.appCheckoutRpc,
      billing.billingOverviewRpc,
      billing.billingDetailsRpc,
      billing.setBillingDetailsRpc,
      billing.changePlanRpc,
      billing.claimCheckoutRpc,
      billing.createCheckoutRpc,
      billing.invoiceReceiptRpc,
      billing.manageBillingRpc,
      billing.previewPlanChangeRpc,
      billing.resumeSubscriptionRpc,
      billing.stripeWebhookRpc,
      billing.testCheckoutInfoRpc,
      billing.testCheckoutPayRpc,
      billing.testPortalCancelRpc,
      billing.testPortalCardRpc,
      billing.verifyCheckoutRpc,
      provisioning.adminDeviceActionRpc,
      provisioning.adminPersonDevicesRpc,
      provisioning.adminDeviceCountRpc,
      provisioning.adminDevicesRpc,
      provisioning.adminDrainNodeRpc,
      provisioning.adminAddNodeRpc,
      provisioning.adminNewEnrolmentRpc,
      provisioning.adminRetireNodeRpc,
      // A host's enrolment with its one-time token (public: the token is the proof).
      provisioning.enrolNodeRpc,
      provisioning.adminOperatorActionsRpc,
      provisioning.adminServersRpc,
      provisioning.publicServersRpc,
      // The connection check: the nodes' egress addresses (the visitor's address stays in the gateway).
      provisioning.egressServersRpc,
      provisioning.changeDeviceRegionRpc,
      provisioning.configByLinkRpc,
      provisioning.createDeviceRpc,
      provisioning.createOrgDeviceRpc,
      provisioning.deviceConfigRpc,
      provisioning.deviceOverviewRpc,
      provisioning.devicePeerInfoRpc,
      provisioning.issueConfigLinksRpc,
      provisioning.listDevicesRpc,
      provisioning.listOrgDevicesRpc,
      provisioning.orgDeviceOverviewRpc,
      // What provisioning's copy says of a membership identity just changed (read-your-writes).
      provisioning.copiedMembershipRpc,
      provisioning.removeDeviceRpc,
      provisioning.requestKeyRpc,
      provisioning.setKeyRotationRpc,
      provisioning.setDevicePrivacyRpc,
      provisioning.updateDeviceRpc,
      telemetry.adminLatestRpc,
      telemetry.adminTrafficRpc,
      telemetry.adminServerHistoryRpc,
      analytics.arpuRpc,
      analytics.cancelsWindowRpc,
      analytics.churnMonthlyRpc,
      analytics.cohortRetentionRpc,
      analytics.funnelRpc,
      analytics.mrrMovementsRpc,
      analytics.mrrTotalsRpc,
      analytics.newSubscriptionsWindowRpc,
      analytics.projectionStatusRpc,
      analytics.rebuildProjectionRpc,
      analytics.revenueDailyRpc,
      analytics.revenueMonthlyRpc,
      analytics.revenueWindowRpc,
      analytics.subscriptionsDailyRpc,
      ...backendServices.map((service) => healthRpc(service)),
    ],
    // The visits it counts for the funnel (the stream is analytics', the gateway manages none).
    publishes: eventsOf('gateway'),
    declares: [],
    consumes: {},
  },
  identity: {
    serves: rpcsServedBy('identity'),
    // A mailed receipt's description and billing details, asked when the mail is sent.
    calls: [billing.receiptMailFactsRpc],
    publishes: eventsOf('identity'),
    declares: ['identity'],
    // Billing's subscriptions (an organization whose plan ended is Suspended) and notices, and
    // provisioning's device changes (the organizations' audit log).
    consumes: {
      billing: [
        'identity.purchase-claimed',
        'identity.subscription-activated',
        'identity.subscription-updated',
        'identity.subscription-canceled',
        'identity.mail-invoice-paid',
        'identity.mail-purchase-claimed',
        'identity.mail-payment-failed',
        'identity.mail-subscription-updated',
        'identity.mail-subscription-canceled',
        'identity.mail-refund-issued',
        // The operators' audit of a refund an operator asked for (issue #26).
        'identity.audit-refund-issued',
      ],
      provisioning: [
        'identity.audit-device-created',
        'identity.audit-device-renamed',
        'identity.audit-device-privacy-changed',
        'identity.audit-device-suspended',
        'identity.audit-device-activated',
        'identity.audit-device-removed',
        'identity.audit-key-rotated',
      ],
    },
  },
  billing: {
    serves: rpcsServedBy('billing'),
    // An organization's members and devices, counted before a Business downgrade (issue #26).
    calls: [identity.getMeRpc, identity.membershipRpc, identity.getOrganizationRpc, provisioning.orgDeviceOverviewRpc],
    publishes: eventsOf('billing'),
    declares: ['billing'],
    // A deleted account: its plans end and the addresses billing kept are forgotten.
    consumes: { identity: ['billing.user-deleted'] },
  },
  provisioning: {
    serves: rpcsServedBy('provisioning'),
    calls: [
      identity.membershipRpc,
      identity.mailAddressRpc,
      billing.activePlanRpc,
      telemetry.latestTelemetryRpc,
      // The operator console's device list and servers (each with the admin's own assertion).
      identity.adminDirectoryRpc,
      identity.adminFindUsersRpc,
      identity.adminTestUserIdsRpc,
      telemetry.adminNodeStatsRpc,
    ],
    publishes: eventsOf('provisioning'),
    declares: ['provisioning'],
    makesConsumersOn: ['provisioning'],
    // Billing's subscriptions (entitlements), identity's organizations (members, roles, status)
    // and telemetry's newer handshakes (each device's "connected now").
    consumes: {
      billing: [
        'provisioning.subscription-activated',
        'provisioning.subscription-updated',
        'provisioning.subscription-canceled',
      ],
      identity: [
        'provisioning.user-verified',
        'provisioning.member-joined',
        'provisioning.member-left',
        'provisioning.member-role-changed',
        'provisioning.organization-status-changed',
        'provisioning.user-deleted',
        'provisioning.user-suspension-changed',
      ],
      telemetry: ['provisioning.handshakes-observed'],
    },
  },
  // Telemetry declares the stream of the node agents' samples: it is their only reader, and a
  // node agent (on a host exposed to the internet) has no right to manage streams.
  telemetry: {
    serves: rpcsServedBy('telemetry'),
    // The names of the devices on the console's Telemetry page, and the test accounts it leaves
    // out when asked (each with the admin's own assertion).
    calls: [provisioning.adminDeviceNamesRpc, identity.adminTestUserIdsRpc],
    publishes: eventsOf('telemetry'),
    declares: ['node', 'telemetry'],
    consumes: {
      provisioning: [
        'telemetry.node-registered',
        'telemetry.device-created',
        'telemetry.device-suspended',
        'telemetry.device-activated',
        'telemetry.key-rotated',
        'telemetry.device-removed',
        'telemetry.keys-revoked',
        'telemetry.device-moved',
      ],
      node: ['telemetry.peers-sampled', 'telemetry.host-sampled', 'telemetry.handshakes-changed'],
    },
  },
  // Analytics declares the stream of the gateway's visit counts (the gateway, facing the internet,
  // manages no stream) and reads billing's, identity's and the gateway's history.
  analytics: {
    serves: rpcsServedBy('analytics'),
    calls: [],
    publishes: [],
    declares: ['gateway'],
    consumes: {
      billing: analyticsDurables('billing'),
      identity: analyticsDurables('signups'),
      gateway: analyticsDurables('visits'),
    },
  },
};

export function isBusPrincipal(user: string): user is BusPrincipal {
  return Object.hasOwn(busAccess, user);
}

/** The NATS user of a node agent. */
export function nodeUser(node: string): string {
  return `node-${node}`;
}

/** The durable consumer provisioning makes for a node when it registers; the node only reads it. */
export function nodeConsumerName(node: string): string {
  return `node-${node}`;
}

/**
 * A node agent may ask only its own node's RPCs, publish only its own node's samples and read
 * only its own durable consumer, whose filter (set by provisioning) is its own peer subjects.
 */
export function nodeBusAccess(node: string): BusAccess {
  return {
    serves: [],
    calls: nodeRpcs,
    publishes: eventsOf('node').map((subject) => fillSubject(subject, { node })),
    declares: [],
    consumes: {},
    uses: [`provisioning/${nodeConsumerName(node)}`],
    node,
  };
}

/** The subject a node's durable consumer follows: its own peer changes, nothing else. */
export function nodePeerSubjects(node: string): string {
  return `provisioning.peers.${node}`;
}

const askers = new Map<string, Set<string>>();
for (const [principal, access] of Object.entries(busAccess)) {
  for (const contract of access.calls) {
    if (!askers.has(contract.subject)) askers.set(contract.subject, new Set());
    askers.get(contract.subject)!.add(principal);
  }
}

/**
 * Whether a NATS user may ask an RPC: a principal whose `calls` name it, the node named in a node
 * RPC's subject (and no other), or the operator. What the server's permissions allow, checked
 * again by the service that answers.
 */
export function mayAsk(user: string, contract: RpcContract, params: SubjectParams = {}): boolean {
  if (user === operatorUser) return true;
  if (isTemplate(contract.subject))
    return (
      nodeRpcs.some((rpc) => rpc.subject === contract.subject) &&
      params.node !== undefined &&
      user === nodeUser(params.node)
    );
  return askers.get(contract.subject)?.has(user) ?? false;
}
