import type { Page, Route } from 'playwright-core';

/**
 * A small in-memory stand-in for the organization routes of the gateway (shapes of
 * libs/contracts/src/http/organizations.http.ts), served to the page with playwright's page.route.
 * It lets the business screens be driven and photographed without the services; the real stack is
 * proven by web/test/business-area.test.ts.
 */

type Role = 'owner' | 'admin' | 'member';
type Person = { user_id: string; full_name: string | null; email: string; role: Role };
type Device = {
  id: string;
  name: string;
  platform: string;
  is_active: boolean;
  user_id: string;
  org_id: string | null;
  created_at: string;
  public_key: string | null;
  addresses: string[];
  node: null;
  region_choice: string;
  country: string | null;
  config_changed_at: string | null;
  held_since: string | null;
  key_created_at: string | null;
  client_keys: boolean;
  key_rotation_days: 30 | 90 | null;
  next_key_rotation_at: string | null;
  previous_key_expires_at: string | null;
  blocking: string[];
  split_tunnel: 'all' | 'except_local' | 'custom';
  custom_routes: string[];
  is_connected: boolean;
  latest_handshake: string | null;
  rx_bytes: number;
  tx_bytes: number;
};
type Org = {
  id: string;
  name: string;
  plan: string;
  is_active: boolean;
  created_at: string;
  people: Person[];
  /** Why an operator suspended it (issue #26); absent: none did. */
  suspension_reason?: string;
};

const ids = {
  owner: '00000000-0000-4000-8000-000000000001',
  admin: '00000000-0000-4000-8000-000000000002',
  member: '00000000-0000-4000-8000-000000000003',
  stranger: '00000000-0000-4000-8000-000000000009',
  acme: '10000000-0000-4000-8000-000000000001',
  bravo: '10000000-0000-4000-8000-000000000002',
};
export const fakeIds = ids;
export const inviteToken = 'fake-invitation-token-0123456789';
export const quotaMessage = 'Mia Chen already has 5 organization devices.';

export type FakeViewer = 'owner' | 'member' | 'stranger' | 'none-signed-in' | 'orgless';

let sequence = 0;
function uuid(): string {
  sequence += 1;
  return `20000000-0000-4000-8000-${String(sequence).padStart(12, '0')}`;
}

function device(name: string, platform: string, userId: string, connected: boolean, orgId: string): Device {
  return {
    id: uuid(),
    name,
    platform,
    is_active: true,
    user_id: userId,
    org_id: orgId,
    created_at: '2026-02-01T10:00:00.000Z',
    public_key: 'k'.repeat(43),
    addresses: ['10.64.0.2/32'],
    node: null,
    region_choice: 'auto',
    country: null,
    config_changed_at: null,
    held_since: null,
    key_created_at: '2026-02-01T10:00:00.000Z',
    client_keys: false,
    key_rotation_days: null,
    next_key_rotation_at: null,
    previous_key_expires_at: null,
    blocking: [],
    split_tunnel: 'all',
    custom_routes: [],
    is_connected: connected,
    latest_handshake: connected ? new Date().toISOString() : null,
    rx_bytes: 1024,
    tx_bytes: 2048,
  };
}

/** A device's privacy fields from a request body (the fake checks no routes: the services do). */
function privacyOf(body: Record<string, unknown>) {
  const split = (body.split_tunnel as Device['split_tunnel'] | undefined) ?? 'all';
  return {
    blocking: (body.blocking as string[] | undefined) ?? [],
    split_tunnel: split,
    custom_routes: split === 'custom' ? ((body.custom_routes as string[] | undefined) ?? []) : [],
  };
}

export class FakeOrgApi {
  readonly unexpected: string[] = [];
  /** The bodies of the page's privacy changes, in order. */
  readonly bodies: Record<string, unknown>[] = [];
  /** Every request the page sent, as `METHOD /path?query`, in order. */
  readonly requests: string[] = [];
  readonly orgs: Org[];
  devices: Device[];
  invitations: {
    id: string;
    email: string;
    role: 'admin' | 'member';
    invited_by: string | null;
    created_at: string;
    expires_at: string;
  }[];
  readonly audit: {
    id: string;
    at: string;
    kind: string;
    actor: { user_id: string; name: string } | null;
    target: { kind: string; id: string; name: string } | null;
    details: Record<string, unknown>;
  }[];
  accepted = false;

  constructor(readonly viewer: FakeViewer) {
    const owner: Person = { user_id: ids.owner, full_name: 'Olivia Owner', email: 'olivia@example.com', role: 'owner' };
    const admin: Person = { user_id: ids.admin, full_name: 'Adam Admin', email: 'adam@example.com', role: 'admin' };
    const member: Person = { user_id: ids.member, full_name: 'Mia Chen', email: 'mia@example.com', role: 'member' };
    this.orgs = [
      {
        id: ids.acme,
        name: 'Acme Research',
        plan: 'business10',
        is_active: true,
        created_at: '2026-01-15T09:30:00.000Z',
        people: [owner, admin, member],
      },
      {
        id: ids.bravo,
        name: 'Bravo Labs',
        plan: 'business50',
        is_active: false,
        created_at: '2025-11-02T09:30:00.000Z',
        people: [
          { ...owner, role: 'member' },
          { ...member, role: 'owner' },
        ],
      },
    ];
    this.devices = [
      device('Olivia’s laptop', 'macos', ids.owner, true, ids.acme),
      device('Build server', 'linux', ids.admin, false, ids.acme),
      ...['Mia phone', 'Mia laptop', 'Mia tablet', 'Mia desktop'].map((n, i) =>
        device(n, i % 2 ? 'android' : 'windows', ids.member, i === 0, ids.acme),
      ),
    ];
    this.invitations = [
      {
        id: uuid(),
        email: 'noah@example.com',
        role: 'member',
        invited_by: ids.owner,
        created_at: '2026-03-01T08:00:00.000Z',
        expires_at: '2026-03-08T08:00:00.000Z',
      },
    ];
    const kinds = ['member.invited', 'member.joined', 'device.added', 'device.suspended', 'member.role_changed'];
    this.audit = Array.from({ length: 32 }, (_, i) => ({
      id: uuid(),
      at: new Date(Date.UTC(2026, 2, 1, 12, 0) - i * 3_600_000).toISOString(),
      kind: kinds[i % kinds.length] ?? 'device.added',
      actor: i % 3 === 0 ? { user_id: ids.member, name: 'Mia Chen' } : { user_id: ids.owner, name: 'Olivia Owner' },
      target:
        i % kinds.length === 2 || i % kinds.length === 3
          ? { kind: 'device', id: uuid(), name: `Device ${i}` }
          : { kind: 'user', id: ids.member, name: 'Mia Chen' },
      // The shapes identity writes: a role change says from and to.
      details: i % kinds.length === 4 ? { from: 'member', to: 'admin' } : {},
    }));
  }

  /** `count` more of the owner's devices in Acme, older than the rest, 'Fleet box 0' the newest of them (issue #24's paging). */
  addFleet(count: number): void {
    for (let i = 0; i < count; i++)
      this.devices.push(device(`Fleet box ${i}`, 'linux', ids.owner, i % 4 === 0, ids.acme));
  }

  get self(): Person {
    const id = this.viewer === 'member' ? ids.member : this.viewer === 'stranger' ? ids.stranger : ids.owner;
    if (this.viewer === 'stranger')
      return { user_id: ids.stranger, full_name: 'Sam Stranger', email: 'sam@example.com', role: 'member' };
    return this.orgs[0]?.people.find((p) => p.user_id === id) as Person;
  }

  private myOrgs(): Org[] {
    if (this.viewer === 'orgless' || this.viewer === 'stranger') return this.accepted ? this.orgs.slice(0, 1) : [];
    return this.orgs.filter((o) => o.people.some((p) => p.user_id === this.self.user_id));
  }

  private roleIn(org: Org): Role | null {
    return org.people.find((p) => p.user_id === this.self.user_id)?.role ?? null;
  }

  private view(org: Org) {
    return {
      id: org.id,
      name: org.name,
      plan: org.plan,
      is_active: org.is_active,
      created_at: org.created_at,
      role: this.roleIn(org) ?? 'member',
      member_count: org.people.length,
      ...(org.suspension_reason === undefined ? {} : { suspension_reason: org.suspension_reason }),
    };
  }

  private visibleDevices(org: Org): Device[] {
    const all = this.devices.filter((d) => d.org_id === org.id);
    const role = this.roleIn(org);
    return role === 'owner' || role === 'admin' ? all : all.filter((d) => d.user_id === this.self.user_id);
  }

  async install(page: Page): Promise<void> {
    await page.route(/\/api\//, (route) => this.handle(route));
  }

  private async handle(route: Route): Promise<void> {
    const request = route.request();
    const url = new URL(request.url());
    const method = request.method();
    const path = url.pathname;
    this.requests.push(`${method} ${path}${url.search}`);
    const body = request.postData() ? (JSON.parse(request.postData() ?? '{}') as Record<string, unknown>) : {};
    const json = (status: number, data: unknown) =>
      route.fulfill({ status, contentType: 'application/json', body: data === undefined ? '' : JSON.stringify(data) });
    const fail = (status: number, code: string, message: string) => json(status, { error: { code, message } });
    const signedIn = this.viewer !== 'none-signed-in' || this.accepted;
    const self = this.self;

    if (path === '/api/auth/refresh' && method === 'POST') {
      if (!signedIn) return fail(401, 'invalid_token', 'Not signed in');
      return json(200, {
        access_token: 'fake-access-token',
        token_type: 'bearer',
        expires_in: 900,
        expires_at: Math.floor(Date.now() / 1000) + 900,
        user: {
          id: self.user_id,
          email: self.email,
          account_type: this.viewer === 'owner' ? 'business' : 'personal',
          role: 'client',
          is_admin: false,
          email_verified: true,
        },
      });
    }
    if (path === '/api/auth/logout') return json(204, undefined);
    if (path === '/api/me')
      return json(200, {
        user: { id: self.user_id, email: self.email, created_at: '2026-01-01T00:00:00.000Z' },
        profile: {
          id: self.user_id,
          email: self.email,
          full_name: self.full_name,
          avatar_url: null,
          account_type: this.viewer === 'owner' ? 'business' : 'personal',
          role: 'client',
        },
        role: 'client',
        is_admin: false,
        email_verified: true,
        mfa_enabled: false,
        org_member: this.myOrgs().length > 0,
      });
    if (path === '/api/orgs' && method === 'GET')
      return json(200, { organizations: this.myOrgs().map((o) => this.view(o)) });
    // The person's own devices (none here): "Am I protected?" on the business Overview looks among them too.
    // The gateway's "Am I protected?" (issue #25): this browser is on no Quietwire server.
    if (path === '/api/connection-check') return json(200, { protected: false, server: null, resolvers: [] });
    if (path === '/api/devices' && method === 'GET') return json(200, { devices: [] });
    // Billing details for invoices (issue #26): none set.
    if (path === '/api/billing/details' && method === 'GET')
      return json(200, { company_name: '', address: '', vat_id: '' });
    if (path === '/api/billing' && method === 'GET') {
      const orgId = url.searchParams.get('org_id');
      if (!orgId)
        return json(200, {
          subscription:
            this.viewer === 'member'
              ? {
                  id: uuid(),
                  plan: 'personal',
                  status: 'active',
                  renews_at: '2026-04-01T00:00:00.000Z',
                  cancel_at_period_end: false,
                  org_id: null,
                }
              : null,
          invoices: [],
          provider: 'test',
        });
      return json(200, {
        subscription: {
          id: uuid(),
          plan: 'business10',
          status: 'active',
          renews_at: '2026-04-15T00:00:00.000Z',
          cancel_at_period_end: false,
          org_id: orgId,
        },
        invoices: [
          {
            id: uuid(),
            amount_cents: 5000,
            currency: 'usd',
            status: 'paid',
            period_start: '2026-02-15T00:00:00.000Z',
            period_end: '2026-03-15T00:00:00.000Z',
            paid_at: '2026-02-15T00:00:00.000Z',
          },
          {
            id: uuid(),
            amount_cents: 5000,
            currency: 'usd',
            status: 'paid',
            period_start: '2026-01-15T00:00:00.000Z',
            period_end: '2026-02-15T00:00:00.000Z',
            paid_at: '2026-01-15T00:00:00.000Z',
          },
        ],
        provider: 'test',
      });
    }
    if (path === '/api/invitations/preview' && method === 'POST') {
      if (body.token !== inviteToken) return fail(404, 'not_found', 'This invitation does not exist or has expired.');
      return json(200, {
        organization: 'Acme Research',
        email: 'sam@example.com',
        role: 'member',
        expires_at: '2026-03-08T08:00:00.000Z',
        account_exists: this.viewer !== 'none-signed-in',
      });
    }
    if (path === '/api/invitations/accept' && method === 'POST') {
      this.accepted = true;
      const org = this.orgs[0] as Org;
      org.people.push({ user_id: ids.stranger, full_name: 'Sam Stranger', email: 'sam@example.com', role: 'member' });
      return json(200, { organization: this.view(org) });
    }
    const privacyMatch = /^\/api\/devices\/([^/]+)\/privacy$/.exec(path);
    const privacyDevice = privacyMatch ? this.devices.find((d) => d.id === privacyMatch[1]) : undefined;
    if (privacyDevice && method === 'PATCH') {
      this.bodies.push(body);
      const before = JSON.stringify(privacyOf(privacyDevice));
      Object.assign(privacyDevice, privacyOf({ ...privacyDevice, ...body }));
      return json(200, { device: privacyDevice, config_changed: JSON.stringify(privacyOf(privacyDevice)) !== before });
    }
    const deviceMatch = /^\/api\/devices\/([^/]+)$/.exec(path);
    if (deviceMatch) {
      const found = this.devices.find((d) => d.id === deviceMatch[1]);
      if (!found) return fail(404, 'not_found', 'No such device.');
      if (method === 'PATCH') {
        Object.assign(found, body);
        return json(200, { device: found });
      }
      if (method === 'DELETE') {
        this.devices = this.devices.filter((d) => d !== found);
        return json(204, undefined);
      }
    }

    const orgMatch = /^\/api\/orgs\/([^/]+)(?:\/(.*))?$/.exec(path);
    const org = orgMatch ? this.myOrgs().find((o) => o.id === orgMatch[1]) : undefined;
    if (orgMatch && !org) return fail(404, 'not_found', 'No such organization.');
    if (org) {
      const rest = orgMatch?.[2] ?? '';
      const role = this.roleIn(org);
      const manages = role === 'owner' || role === 'admin';
      const managersOnly = () => fail(403, 'forbidden', 'Only owners and admins can do that.');
      const cap = org.plan === 'business10' ? 10 : org.plan === 'business50' ? 50 : 250;
      if (rest === '' && method === 'GET')
        return json(200, {
          ...this.view(org),
          user_cap: cap,
          device_cap: cap,
          status: org.is_active ? 'Active' : 'Suspended',
        });
      if (rest === '' && method === 'PATCH') {
        if (!manages) return managersOnly();
        org.name = String(body.name);
        return json(200, { ...this.view(org), user_cap: cap, device_cap: cap, status: 'Active' });
      }
      if (rest === 'overview') {
        const list = this.visibleDevices(org);
        const connected = list.filter((d) => d.is_connected).length;
        return json(200, { devices: list.length, connected, vpn_status: connected > 0 ? 'Online' : 'Idle' });
      }
      if (rest === 'devices' && method === 'GET') {
        // Paged as the gateway pages it (issue #24): page, per_page (1–100, 50), assignee_id, q;
        // the quota counts the whole organization whatever the page.
        const byAssignee: Record<string, number> = {};
        for (const p of manages ? org.people : [self]) byAssignee[p.user_id] = 0;
        for (const d of this.devices.filter((d) => d.org_id === org.id && d.user_id in byAssignee))
          byAssignee[d.user_id] = (byAssignee[d.user_id] ?? 0) + 1;
        const page = Number(url.searchParams.get('page') ?? 1);
        const perPage = Number(url.searchParams.get('per_page') ?? 50);
        if (!Number.isInteger(page) || page < 1 || !Number.isInteger(perPage) || perPage < 1 || perPage > 100)
          return fail(400, 'validation_failed', 'querystring/per_page must be <= 100');
        const assignee = url.searchParams.get('assignee_id');
        const q = url.searchParams.get('q')?.toLowerCase();
        const found = this.visibleDevices(org).filter(
          (d) => (!assignee || d.user_id === assignee) && (!q || d.name.toLowerCase().includes(q)),
        );
        return json(200, {
          devices: found.slice((page - 1) * perPage, page * perPage),
          total: found.length,
          page,
          per_page: perPage,
          quota: {
            per_assignee: 5,
            by_assignee: byAssignee,
            devices: this.devices.filter((d) => d.org_id === org.id).length,
            device_cap: cap,
          },
        });
      }
      if (rest === 'devices' && method === 'POST') {
        if (!org.is_active) return fail(409, 'conflict', `${org.name} is Suspended: no device can be added.`);
        const assignee = (body.assignee_id as string | undefined) ?? self.user_id;
        if (this.devices.filter((d) => d.org_id === org.id && d.user_id === assignee).length >= 5)
          return fail(409, 'quota_exceeded', quotaMessage);
        const added = device(String(body.name), String(body.platform ?? 'linux'), assignee, false, org.id);
        added.region_choice = (body.region as string | undefined) ?? 'auto';
        added.country = (body.country as string | undefined) ?? null;
        Object.assign(added, privacyOf(body));
        this.devices.unshift(added);
        return json(201, { device: added });
      }
      if (rest === 'users') return manages ? json(200, { users: org.people }) : managersOnly();
      if (rest === 'invitations' && method === 'GET')
        return manages ? json(200, { invitations: this.invitations }) : managersOnly();
      if (rest === 'invitations' && method === 'POST') {
        if (!manages) return managersOnly();
        const invitation = {
          id: uuid(),
          email: String(body.email),
          role: body.role as 'admin' | 'member',
          invited_by: self.user_id,
          created_at: new Date().toISOString(),
          expires_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
        };
        this.invitations.push(invitation);
        return json(201, { invitation });
      }
      const revoke = /^invitations\/(.+)$/.exec(rest);
      if (revoke && method === 'DELETE') {
        this.invitations = this.invitations.filter((i) => i.id !== revoke[1]);
        return json(204, undefined);
      }
      const person = /^users\/(.+)$/.exec(rest);
      if (person) {
        if (!manages) return managersOnly();
        const target = org.people.find((p) => p.user_id === person[1]);
        if (!target) return fail(404, 'not_found', 'No such user.');
        if (method === 'PATCH') {
          if (target.role === 'owner' && org.people.filter((p) => p.role === 'owner').length === 1)
            return fail(409, 'conflict', 'The last owner cannot be demoted.');
          target.role = body.role as Role;
          return json(200, { user: target });
        }
        if (method === 'DELETE') {
          org.people = org.people.filter((p) => p !== target);
          return json(204, undefined);
        }
      }
      if (rest === 'leave') {
        if (role === 'owner' && org.people.filter((p) => p.role === 'owner').length === 1)
          return fail(409, 'conflict', 'You are the last owner: make someone else an owner first.');
        org.people = org.people.filter((p) => p.user_id !== self.user_id);
        return json(204, undefined);
      }
      if (rest === 'audit') {
        if (!manages) return managersOnly();
        const kind = url.searchParams.get('kind');
        const who = url.searchParams.get('person');
        const before = url.searchParams.get('before');
        const limit = Number(url.searchParams.get('limit') ?? 25);
        const matching = this.audit.filter(
          (e) => (!kind || e.kind === kind) && (!who || e.actor?.user_id === who || e.target?.id === who),
        );
        const start = before ? matching.findIndex((e) => e.id === before) + 1 : 0;
        const entries = matching.slice(start, start + limit);
        const next = start + limit < matching.length ? (entries[entries.length - 1]?.id ?? null) : null;
        return json(200, { entries, next });
      }
    }
    this.unexpected.push(`${method} ${path}`);
    return fail(404, 'not_found', `The fake API has no ${method} ${path}.`);
  }
}
