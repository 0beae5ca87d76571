import { sql, type Kysely } from 'kysely';
import {
  adminDirectoryRpc,
  adminFindUsersRpc,
  adminNodeStatsRpc,
  adminTestUserIdsRpc,
  connectedWindowSeconds,
  isDeviceConnected,
  ownerSearchLimit,
  requireAdmin,
  type AdminDevice,
  type AddServerBodySchema,
  type AdminServer,
  type AuditCursor,
  type Caller,
} from '@qw/contracts';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { RpcClient } from '@qw/platform/bus';
import { builtPerShape, pageLiterals, type PageBounds } from '@qw/platform/db';
import type { Static } from 'typebox';
import type { Device, Node, ProvisioningDatabase } from '../database.ts';
import type { DevicesService } from '../devices/devices.service.ts';
import { serverCard } from '../nodes/node-rules.ts';
import {
  devicesHeld,
  nodesById,
  nodesByName,
  peersMoved,
  peersOfTestAccounts,
  peersPlaced,
  peersRetiring,
} from '../nodes/nodes.repository.ts';
import { drainNode } from '../nodes/nodes.service.ts';
import { addNode, newEnrolment, retireNode } from '../nodes/node-lifecycle.service.ts';
import type { NodeBusUsers } from '../nodes/node-bus-users.ts';
import type { Drains } from '../drain/drains.service.ts';
import { addOperatorActionDetails } from './operator-actions.repository.ts';
import { likePattern, type DeviceColumnOf } from '../devices/devices.repository.ts';

/** How long a drain's answer waits for its moves (50 devices take about a second). */
const drainAnswerMs = 3_000;

type Db = Kysely<ProvisioningDatabase>;

/** The columns of a device the console's list shows (`views`), with its node's name joined in. */
const consoleDeviceColumns = [
  'devices.id',
  'devices.name',
  'devices.platform',
  'devices.is_active',
  'devices.public_key',
  'devices.latest_handshake',
  'devices.user_id',
  'devices.org_id',
  'devices.node_id',
  'devices.suspended_by',
  'devices.created_at',
] as const;
type ConsoleDevice = Pick<Device, DeviceColumnOf<(typeof consoleDeviceColumns)[number]>> & { node_name: string | null };

export type AdminDevicesQuery = {
  q?: string | undefined;
  node?: string | undefined;
  org?: string | undefined;
  connected?: boolean | undefined;
  active?: boolean | undefined;
  sort?: 'name' | 'created_at' | undefined;
  dir?: 'asc' | 'desc' | undefined;
  exclude_test?: boolean | undefined;
  page?: number | undefined;
  per_page?: number | undefined;
};

/**
 * Connected now, as `isDeviceConnected` decides it, for filtering and counting in the database:
 * active, with a key, and a handshake (telemetry's, kept on the device) within the connected
 * window, judged by the database's clock.
 */
const connectedNow = sql<boolean>`(devices.is_active and devices.public_key is not null and devices.latest_handshake > now() - make_interval(secs => ${connectedWindowSeconds}))`;

/** Which of the console's filters a device query applies (never their values): a `builtPerShape` shape. */
type ConsoleFilterShape = {
  withoutTest: boolean;
  name: boolean;
  owners: boolean;
  node: boolean;
  org: boolean;
  active: boolean | null;
  connected: boolean | null;
};

/**
 * The console's devices through the filters of `shape`. `values` holds their values in this order,
 * each present only when its filter is: the test accounts' ids, the name's `ilike` pattern, the
 * ids of owners whose address matches, the node, the organization.
 */
function consoleDevices(db: Db, shape: ConsoleFilterShape, values: unknown[]) {
  let next = 0;
  const value = () => values[next++];
  let filtered = db.selectFrom('devices');
  if (shape.withoutTest) filtered = filtered.where(sql<boolean>`not (devices.user_id = any(${value()}::uuid[]))`);
  if (shape.name) {
    const pattern = value() as string;
    const ownerIds = shape.owners ? value() : undefined;
    filtered = filtered.where((eb) =>
      eb.or([
        eb(sql`devices.name`, 'ilike', pattern),
        ...(shape.owners ? [eb(sql`devices.user_id`, '=', sql`any(${ownerIds}::uuid[])`)] : []),
      ]),
    );
  }
  if (shape.node) filtered = filtered.where('devices.node_id', '=', value() as string);
  if (shape.org) filtered = filtered.where('devices.org_id', '=', value() as string);
  if (shape.active !== null) filtered = filtered.where('devices.is_active', '=', shape.active);
  if (shape.connected === true) filtered = filtered.where(connectedNow);
  if (shape.connected === false) filtered = filtered.where(sql<boolean>`not coalesce(${connectedNow}, false)`);
  return filtered;
}

type ConsolePageShape = ConsoleFilterShape & { sort: 'name' | 'created_at'; order: 'asc' | 'desc'; page: PageBounds };

/** A page of the console's devices with their nodes' names (the page's bounds in the text: `pageLiterals`). */
function consolePageQuery(db: Db, shape: ConsolePageShape, values: unknown[]) {
  const { limit, offset } = pageLiterals(shape.page);
  return consoleDevices(db, shape, values)
    .leftJoin('nodes', 'nodes.id', 'devices.node_id')
    .select([...consoleDeviceColumns, 'nodes.name as node_name'])
    .orderBy(shape.sort === 'name' ? 'devices.name' : 'devices.created_at', shape.order)
    .orderBy('devices.id', shape.order)
    .limit(limit)
    .offset(offset);
}

const consolePage = builtPerShape((db: Db, shape: ConsolePageShape, ...values: unknown[]) =>
  consolePageQuery(db, shape, values),
);

/**
 * A page with the filters' total on each of its rows: the count is a subquery Postgres runs once
 * for the statement, so the page and its total take one round trip and read one snapshot. The
 * filters' values come twice, the page's and then the count's (each value one parameter).
 */
const consoleCountedPage = builtPerShape((db: Db, shape: ConsolePageShape, ...values: unknown[]) => {
  const half = values.length / 2;
  return consolePageQuery(db, shape, values.slice(0, half)).select(
    consoleCountQuery(db, shape, values.slice(half)).as('total'),
  );
});

/** How many devices the filters find. */
function consoleCountQuery(db: Db, shape: ConsoleFilterShape, values: unknown[]) {
  return consoleDevices(db, shape, values).select((eb) => eb.fn.countAll<string>().as('n'));
}

const consoleCount = builtPerShape((db: Db, shape: ConsoleFilterShape, ...values: unknown[]) =>
  consoleCountQuery(db, shape, values),
);

/** From this many rows in, a page is found from whichever end of the list is nearer. */
const deepPage = 5_000;

const flip = (dir: 'asc' | 'desc') => (dir === 'asc' ? 'desc' : 'asc');

/**
 * How to read rows `offset` to `offset + perPage` of `total`: forwards, or (when the end is
 * nearer) backwards from the end with a small offset, then reversed.
 */
export function pageFromNearerEnd(
  total: number,
  offset: number,
  perPage: number,
): { reversed: boolean; offset: number; limit: number } {
  if (offset >= total) return { reversed: false, offset, limit: 0 };
  const fromEnd = total - offset - perPage;
  if (fromEnd >= offset) return { reversed: false, offset, limit: perPage };
  return { reversed: true, offset: Math.max(0, fromEnd), limit: Math.min(perPage, total - offset) };
}

/**
 * The operator console's fleet (platform admins only, checked here whoever asks): devices with
 * their owners, organizations, nodes and status; the admin device action; nodes with their peers
 * and metrics; drains. Provisioning owns devices and nodes; owners' addresses and organizations'
 * names are identity's and status is telemetry's, asked with the admin's own assertion.
 */
export class FleetAdmin {
  /**
   * `readDb` (a replica when there is one) serves the device list and the overview's count: a page
   * of the console may trail the primary by the replica's lag. Actions and their answers use `db`.
   */
  constructor(
    private readonly deps: {
      db: Db;
      readDb?: Db;
      rpc: RpcClient;
      devices: DevicesService;
      busUsers: NodeBusUsers;
      drains: Drains;
      logger: Logger;
    },
  ) {}

  /**
   * Spec §2 Devices: filtered by a search (a part of the name, or of the owner's e-mail), node,
   * organization, active and connected; sorted by creation (newest first) or name; paged on the
   * server with the total. "Connected" comes from the handshakes telemetry reports, kept on each
   * device, so it is one more condition of the same indexed query.
   */
  async listDevices(caller: Caller, input: AdminDevicesQuery) {
    requireAdmin(caller);
    const db = this.deps.readDb ?? this.deps.db;
    const page = input.page ?? 1;
    const perPage = input.per_page ?? 25;
    const sort = input.sort ?? 'created_at';
    const dir = input.dir ?? (sort === 'name' ? 'asc' : 'desc');
    const q = input.q?.trim() ?? '';
    const [owners, testIds] = await Promise.all([
      q ? this.deps.rpc.request(adminFindUsersRpc, { q, limit: ownerSearchLimit }, caller) : undefined,
      input.exclude_test ? this.testUserIds(caller) : [],
    ]);

    const ownerIds = owners?.user_ids ?? [];
    const shape: ConsoleFilterShape = {
      withoutTest: testIds.length > 0,
      name: q !== '',
      owners: q !== '' && ownerIds.length > 0,
      node: Boolean(input.node),
      org: Boolean(input.org),
      active: input.active ?? null,
      connected: input.connected ?? null,
    };
    // The filters' values, in the order consoleDevices takes them.
    const values: unknown[] = [];
    if (shape.withoutTest) values.push(testIds);
    if (shape.name) values.push(likePattern(q));
    if (shape.owners) values.push(ownerIds);
    if (input.node) values.push(input.node.toLowerCase());
    if (input.org) values.push(input.org.toLowerCase());
    const sorted = { ...shape, sort };
    const countOf = async () => Number((await consoleCount(db, shape, ...values))[0]!.n);
    const offset = (page - 1) * perPage;
    let devices: ConsoleDevice[];
    let total: number;
    if (offset < deepPage) {
      // The page and its total in one statement; a page past the end has no row to carry the
      // total, so it is counted on its own (none at all on the first page: nothing matches).
      const rows = await consoleCountedPage(
        db,
        { ...sorted, order: dir, page: { limit: perPage, offset } },
        ...values,
        ...values,
      );
      devices = rows;
      total = rows.length > 0 ? Number(rows[0]!.total) : offset === 0 ? 0 : await countOf();
    } else {
      // Far from the start, a page nearer the end is read from the end, backwards, and turned
      // round: the last page of 100,000 devices skips 25 rows instead of 99,975.
      total = await countOf();
      const plan = pageFromNearerEnd(total, offset, perPage);
      const rows =
        plan.limit === 0
          ? []
          : await consolePage(
              db,
              { ...sorted, order: plan.reversed ? flip(dir) : dir, page: { limit: plan.limit, offset: plan.offset } },
              ...values,
            );
      devices = plan.reversed ? rows.reverse() : rows;
    }
    return {
      rows: await this.views(caller, devices),
      total,
      page,
      per_page: perPage,
      ...(owners?.truncated ? { owners_limited: true } : {}),
    };
  }

  /** Devices as the console shows them: owner, organization, node and their latest handshake. */
  async views(caller: Caller, devices: ConsoleDevice[]): Promise<AdminDevice[]> {
    if (devices.length === 0) return [];
    const directory = await this.deps.rpc.request(
      adminDirectoryRpc,
      {
        user_ids: [...new Set(devices.map((d) => d.user_id))],
        org_ids: [...new Set(devices.map((d) => d.org_id).filter((id): id is string => Boolean(id)))],
      },
      caller,
    );
    const userOf = new Map(directory.users.map((u) => [u.id, u]));
    const orgOf = new Map(directory.organizations.map((o) => [o.id, o]));
    const now = new Date();
    return devices.map((device) => {
      const owner = userOf.get(device.user_id);
      const org = device.org_id ? orgOf.get(device.org_id) : undefined;
      const handshake = device.latest_handshake ? new Date(device.latest_handshake) : null;
      return {
        id: device.id,
        name: device.name,
        platform: device.platform,
        is_active: device.is_active,
        is_connected: isDeviceConnected(
          { isActive: device.is_active, hasKey: device.public_key !== null, latestHandshake: handshake },
          now,
        ),
        owner: { id: device.user_id, email: owner?.email ?? '', full_name: owner?.full_name ?? null },
        organization: device.org_id ? { id: device.org_id, name: org?.name ?? '' } : null,
        node: device.node_id && device.node_name !== null ? { id: device.node_id, name: device.node_name } : null,
        has_keys: device.public_key !== null,
        suspended_by: device.suspended_by ?? null,
        latest_handshake: handshake ? handshake.toISOString() : null,
        created_at: new Date(device.created_at).toISOString(),
      };
    });
  }

  /** The overview's Devices tile (and how many of them are active). */
  async deviceCount(caller: Caller, input: { exclude_test?: boolean | undefined } = {}) {
    requireAdmin(caller);
    const testIds = input.exclude_test ? await this.testUserIds(caller) : [];
    const isTest = sql<boolean>`devices.user_id = any(${testIds}::uuid[])`;
    // One statement, so the parts add up to the whole even while devices change.
    const row = await sql<{
      n: string;
      active: string;
      placed: string;
      suspended: string;
      retiring: string;
    }>`
      select count(*) filter (where not ${isTest}) as n,
             count(*) filter (where not ${isTest} and is_active) as active,
             count(*) filter (where not ${isTest} and is_active and public_key is not null) as placed,
             count(*) filter (where not ${isTest} and not is_active) as suspended,
             (select count(*) from retiring_keys r
               where not exists (select 1 from devices d where d.id = r.device_id and d.user_id = any(${testIds}::uuid[]))
             ) as retiring
        from devices`
      .execute(this.deps.readDb ?? this.deps.db)
      .then((result) => result.rows[0]!);
    const placed = Number(row.placed);
    return {
      devices: Number(row.n),
      active: Number(row.active),
      breakdown: {
        placed,
        suspended: Number(row.suspended),
        without_key: Number(row.active) - placed,
        peers_retiring: Number(row.retiring),
      },
    };
  }

  /** The people of test accounts (issue #26), asked of identity with the admin's own assertion. */
  private async testUserIds(caller: Caller): Promise<string[]> {
    return (await this.deps.rpc.request(adminTestUserIdsRpc, {}, caller)).user_ids;
  }

  /** Spec §7 `POST /api/admin-device`: the action, then the device as the list shows it. */
  async deviceAction(caller: Caller, input: { action: 'activate' | 'suspend' | 'revoke_keys'; deviceId: string }) {
    requireAdmin(caller);
    const device = await this.deps.devices.operate(caller, input);
    const nodes = await nodesById(this.deps.db, [device.node_id]);
    const [view] = await this.views(caller, [
      { ...device, node_name: device.node_id ? (nodes.get(device.node_id)?.name ?? null) : null },
    ]);
    return { device: view! };
  }

  /** Device names by id, for telemetry's console page. */
  async deviceNames(caller: Caller, deviceIds: string[]) {
    requireAdmin(caller);
    if (deviceIds.length === 0) return { devices: [] };
    const rows = await this.deps.db
      .selectFrom('devices')
      .select(['id', 'name'])
      .where(
        'id',
        'in',
        deviceIds.map((id) => id.toLowerCase()),
      )
      .execute();
    return { devices: rows };
  }

  private async serverViews(caller: Caller, nodes: Node[], testIds: string[] = []): Promise<AdminServer[]> {
    if (nodes.length === 0) return [];
    const ids = nodes.map((n) => n.id);
    const [placed, retiring, moved, held, test, stats] = await Promise.all([
      peersPlaced(this.deps.db, ids, testIds),
      peersRetiring(this.deps.db, ids, testIds),
      peersMoved(this.deps.db, ids, testIds),
      devicesHeld(this.deps.db, ids, testIds),
      peersOfTestAccounts(this.deps.db, ids, testIds),
      this.deps.rpc.request(
        adminNodeStatsRpc,
        { node_ids: ids, ...(testIds.length > 0 ? { exclude_user_ids: testIds } : {}) },
        caller,
      ),
    ]);
    const statsOf = new Map(stats.nodes.map((s) => [s.node_id, s]));
    return nodes.map((node) =>
      serverCard(
        node,
        {
          placed: placed.get(node.id) ?? 0,
          retiring: retiring.get(node.id) ?? 0,
          moved: moved.get(node.id) ?? 0,
          held: held.get(node.id) ?? 0,
          ...(test.has(node.id) ? { test: test.get(node.id)! } : {}),
        },
        statsOf.get(node.id),
      ),
    );
  }

  /**
   * Spec §2 Servers: one card per node (the spec's vps_hosts), by name, with its peers placed
   * (active devices with a key: what the node should carry), those connected now and its latest
   * metrics within 300 s (telemetry's). `exclude_test` (issue #26): the test accounts' peers are
   * counted apart, in `peers_test`, and left out of every other figure of the card.
   */
  async servers(caller: Caller, input: { exclude_test?: boolean | undefined } = {}) {
    requireAdmin(caller);
    const [nodes, testIds] = await Promise.all([
      nodesByName(this.deps.db),
      input.exclude_test ? this.testUserIds(caller) : [],
    ]);
    return { servers: await this.serverViews(caller, nodes, testIds) };
  }

  /**
   * What operators did to devices and nodes, newest first: by time to the millisecond, then id (the
   * order the console's merged audit uses with its `before` cursor), with each operator's address
   * as identity has it now.
   */
  async operatorActions(
    caller: Caller,
    input: { page?: number | undefined; per_page?: number | undefined; before?: AuditCursor | undefined },
  ) {
    requireAdmin(caller);
    const page = input.page ?? 1;
    const perPage = input.per_page ?? 25;
    const before = input.before;
    const [rows, total] = await Promise.all([
      this.deps.db
        .selectFrom('operator_actions')
        .selectAll()
        .$if(before !== undefined, (q) =>
          q.where(
            sql<boolean>`(date_trunc('milliseconds', at), id) < (${before?.at}::timestamptz, ${before?.id}::uuid)`,
          ),
        )
        .orderBy(sql`date_trunc('milliseconds', at)`, 'desc')
        .orderBy('id', 'desc')
        .limit(perPage)
        .offset((page - 1) * perPage)
        .execute(),
      this.deps.db
        .selectFrom('operator_actions')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    const actorIds = [...new Set(rows.map((row) => row.actor_id))];
    const directory =
      actorIds.length === 0
        ? { users: [] }
        : await this.deps.rpc.request(adminDirectoryRpc, { user_ids: actorIds, org_ids: [] }, caller);
    const emailOf = new Map(directory.users.map((user) => [user.id, user.email]));
    return {
      rows: rows.map((row) => ({
        id: row.id,
        at: new Date(row.at).toISOString(),
        actor_id: row.actor_id,
        actor_email: emailOf.get(row.actor_id) ?? null,
        kind: row.kind,
        target_kind: row.target_kind,
        target_id: row.target_id,
        details: row.details,
      })),
      total: Number(total.n),
      page,
      per_page: perPage,
    };
  }

  /**
   * Drains a node (no new placements; its devices move to other nodes of its region, or are held
   * when none has room) or opens it again (its held devices wait no more, and devices held on
   * other drained nodes may now fit); recorded either way. The answer comes once the moves are
   * done or after `drainAnswerMs`, whichever is first, so a large node never outlasts the
   * request: its moves go on, and their counts are added to the audit row when they end.
   */
  async drain(caller: Caller, input: { node_id: string; draining: boolean }): Promise<AdminServer> {
    const actorId = requireAdmin(caller);
    const { drains } = this.deps;
    const { node, actionId } = await drainNode(this.deps.db, {
      actorId,
      nodeId: input.node_id,
      draining: input.draining,
    });
    if (input.draining) {
      const moves = drains
        .moveOff(node.id, actorId)
        .then((outcome) =>
          addOperatorActionDetails(this.deps.db, actionId, { moved: outcome.moved, held: outcome.held }),
        );
      moves.catch((error: unknown) => this.deps.logger.error({ err: error, nodeId: node.id }, 'drain: moves failed'));
      await Promise.race([moves.catch(() => undefined), delay(drainAnswerMs, undefined, { ref: false })]);
    } else {
      drains.retryAll().catch((error: unknown) => this.deps.logger.error({ err: error }, 'drain: retry failed'));
    }
    const [view] = await this.serverViews(caller, [(await nodesById(this.deps.db, [node.id])).get(node.id)!]);
    return view!;
  }

  /** Adds a server (pending until its host enrols) and answers its card with the first enrolment token. */
  async addServer(caller: Caller, server: Static<typeof AddServerBodySchema>) {
    const actorId = requireAdmin(caller);
    const { node, enrolment } = await addNode(this.deps.db, { actorId, server });
    const [view] = await this.serverViews(caller, [node]);
    return { server: view!, enrolment };
  }

  /** A new enrolment token for a pending server (its earlier unused ones stop working). */
  async newEnrolment(caller: Caller, input: { node_id: string }) {
    const actorId = requireAdmin(caller);
    return newEnrolment(this.deps.db, { actorId, nodeId: input.node_id });
  }

  /** Retires a server without devices: credentials revoked on the bus at once, its leftover peers gone. */
  async retire(caller: Caller, input: { node_id: string }): Promise<AdminServer> {
    const actorId = requireAdmin(caller);
    const node = await retireNode(this.deps.db, this.deps.busUsers, { actorId, nodeId: input.node_id });
    const [view] = await this.serverViews(caller, [node]);
    return view!;
  }
}
