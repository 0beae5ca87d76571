import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page, Route } from 'playwright-core';
import { placementRegions, regionLabel, type RegionChoice, type RegionId } from '@qw/contracts';

/**
 * A small in-memory stand-in for a person's device routes (shapes of
 * libs/contracts/src/http/devices.http.ts) with servers in three regions (issue #23), served to the
 * page with playwright's page.route. It lets the region picker, a region change, a moved, held or
 * unreachable device be driven and photographed without a fleet; the real services are proven by
 * the provisioning and gateway tests, and the region change live in web/test/device-regions-live.test.ts.
 */

export type FakeServer = {
  id: string;
  name: string;
  region: RegionId;
  city: string;
  reachable: boolean;
  full: boolean;
};
export type FakeDevice = {
  id: string;
  name: string;
  platform: string;
  is_active: boolean;
  user_id: string;
  org_id: string | null;
  created_at: string;
  public_key: string | null;
  addresses: string[];
  node: Omit<FakeServer, 'full'> | null;
  region_choice: RegionChoice;
  country: string | null;
  config_changed_at: string | null;
  held_since: string | null;
  key_created_at: string | null;
  client_keys: boolean;
  key_rotation_days: 30 | 90 | null;
  next_key_rotation_at: string | null;
  previous_key_expires_at: string | null;
  suspended_by: null;
  blocking: string[];
  split_tunnel: 'all' | 'except_local' | 'custom';
  custom_routes: string[];
  is_connected: boolean;
  latest_handshake: string | null;
  rx_bytes: number;
  tx_bytes: number;
  received_bytes_24h: number;
  sent_bytes_24h: number;
};

const self = { id: '00000000-0000-4000-8000-0000000000a1', email: 'rowan@example.com' };
/** A 1×1 PNG: the QR image's stand-in. */
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mP8/x8AAwMCAO+ip1sAAAAASUVORK5CYII=',
  'base64',
);

let sequence = 0;
function uuid(prefix: string): string {
  sequence += 1;
  return `${prefix}000000-0000-4000-8000-${String(sequence).padStart(12, '0')}`;
}

export class FakeFleetApi {
  readonly unexpected: string[] = [];
  /** Every request the page sent, as `METHOD /path?query`, in order. */
  readonly requests: string[] = [];
  /** The bodies of the page's POSTs to /api/devices and /api/devices/{id}/region, in order. */
  readonly bodies: Record<string, unknown>[] = [];
  readonly servers: FakeServer[] = [
    { id: uuid('30'), name: 'us-east-1', region: 'north-america', city: 'New York', reachable: true, full: false },
    { id: uuid('30'), name: 'eu-1', region: 'europe', city: 'Frankfurt', reachable: true, full: false },
    { id: uuid('30'), name: 'ap-1', region: 'asia', city: 'Singapore', reachable: true, full: false },
  ];
  devices: FakeDevice[] = [];

  server(region: RegionId): FakeServer {
    const found = this.servers.find((s) => s.region === region);
    if (!found) throw new Error(`no server in ${region}`);
    return found;
  }

  /** A device on the first server of `region`, as provisioning would answer it. */
  add(name: string, region: RegionId, changes: Partial<FakeDevice> = {}): FakeDevice {
    const { full: _full, ...node } = this.server(region);
    const device: FakeDevice = {
      id: uuid('20'),
      name,
      platform: 'macos',
      is_active: true,
      user_id: self.id,
      org_id: null,
      created_at: '2026-11-20T10:00:00.000Z',
      public_key: `${'k'.repeat(43)}=`,
      addresses: [`10.64.0.${this.devices.length + 2}/32`],
      node,
      region_choice: 'auto',
      country: null,
      config_changed_at: null,
      held_since: null,
      key_created_at: '2026-11-20T10:00:00.000Z',
      client_keys: false,
      key_rotation_days: null,
      next_key_rotation_at: null,
      previous_key_expires_at: null,
      suspended_by: null,
      blocking: [],
      split_tunnel: 'all',
      custom_routes: [],
      is_connected: false,
      latest_handshake: null,
      rx_bytes: 0,
      tx_bytes: 0,
      received_bytes_24h: 0,
      sent_bytes_24h: 0,
      ...changes,
    };
    this.devices.unshift(device);
    return device;
  }

  /** Where placement would put a device that asks for `choice`: the first region in order with a server with room. */
  private place(choice: RegionChoice, country: string | null): FakeServer | null {
    for (const group of placementRegions(choice, country)) {
      const room = this.servers.find((s) => group.includes(s.region) && s.reachable && !s.full);
      if (room) return room;
    }
    return null;
  }

  private files: Server | null = null;

  /**
   * The page's API calls go through page.route; the config file through a small HTTP server of
   * its own, because Playwright neither routes nor sees a download: the file is fetched as from
   * provisioning, and fetching it clears a moved device's notice as provisioning does.
   */
  async install(page: Page): Promise<void> {
    await page.route(
      (url) => url.pathname.startsWith('/api/') && url.origin !== this.filesUrl,
      (route) => this.handle(route),
    );
    if (this.files) return;
    const files = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://fake');
      const config = /^\/api\/device\/([^/]+)\/config$/.exec(url.pathname);
      const device = config ? this.devices.find((d) => d.id === config[1]) : undefined;
      this.requests.push(`${request.method} ${url.pathname}${url.search}`);
      if (!device) {
        response.writeHead(404).end();
        return;
      }
      device.config_changed_at = null;
      if (url.searchParams.get('format') === 'qr') {
        response.writeHead(200, { 'content-type': 'image/png' }).end(png);
        return;
      }
      response
        .writeHead(200, {
          'content-type': 'text/plain',
          'content-disposition': 'attachment; filename="rowan-laptop.conf"',
        })
        .end(`[Interface]\nPrivateKey = (fake)\n\n[Peer]\nEndpoint = ${device.node?.name}.example:51820\n`);
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    this.files = files;
  }

  async close(): Promise<void> {
    const files = this.files;
    this.files = null;
    if (files) await new Promise((resolve) => files.close(resolve));
  }

  private get filesUrl(): string {
    const address = this.files?.address() as AddressInfo | null | undefined;
    return address ? `http://127.0.0.1:${address.port}` : '';
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

    if (path === '/api/auth/refresh' && method === 'POST')
      return json(200, {
        access_token: 'fake-access-token',
        token_type: 'bearer',
        expires_in: 900,
        expires_at: Math.floor(Date.now() / 1000) + 900,
        user: {
          id: self.id,
          email: self.email,
          account_type: 'personal',
          role: 'client',
          is_admin: false,
          email_verified: true,
        },
      });
    if (path === '/api/auth/logout') return json(204, undefined);
    if (path === '/api/me')
      return json(200, {
        user: { id: self.id, email: self.email, created_at: '2026-01-01T00:00:00.000Z' },
        profile: {
          id: self.id,
          email: self.email,
          full_name: 'Rowan Park',
          avatar_url: null,
          account_type: 'personal',
          role: 'client',
        },
        role: 'client',
        is_admin: false,
        email_verified: true,
        mfa_enabled: false,
        org_member: false,
      });
    if (path === '/api/orgs' && method === 'GET') return json(200, { organizations: [] });
    if (path === '/api/billing' && method === 'GET')
      return json(200, {
        subscription: {
          id: uuid('40'),
          plan: 'personal',
          status: 'active',
          renews_at: '2026-12-20T00:00:00.000Z',
          cancel_at_period_end: false,
          org_id: null,
        },
        invoices: [],
        provider: 'test',
      });
    if (path === '/api/overview') {
      const connected = this.devices.filter((d) => d.is_connected).length;
      return json(200, { devices: this.devices.length, connected, vpn_status: connected > 0 ? 'Online' : 'Idle' });
    }
    // The gateway's "Am I protected?" (issue #25): this browser is on no Quietwire server.
    if (path === '/api/connection-check') return json(200, { protected: false, server: null, resolvers: [] });
    if (path === '/api/devices' && method === 'GET') return json(200, { devices: this.devices });
    if (path === '/api/devices' && method === 'POST') {
      this.bodies.push(body);
      const choice = (body.region as RegionChoice | undefined) ?? 'auto';
      const country = (body.country as string | undefined) ?? null;
      const server = this.place(choice, country);
      if (!server) return fail(409, 'conflict', 'No server has room for a new device right now. Try again later.');
      const added = this.add(String(body.name), server.region, {
        platform: String(body.platform),
        region_choice: choice,
        country,
        blocking: (body.blocking as string[] | undefined) ?? [],
        split_tunnel: (body.split_tunnel as FakeDevice['split_tunnel'] | undefined) ?? 'all',
        custom_routes: (body.custom_routes as string[] | undefined) ?? [],
      });
      return json(201, { device: added });
    }

    const match = /^\/api\/devices?\/([^/]+)(?:\/(.*))?$/.exec(path);
    const device = match ? this.devices.find((d) => d.id === match[1]) : undefined;
    if (match && !device) return fail(404, 'not_found', 'No such device.');
    if (match && device) {
      const rest = match[2] ?? '';
      if (path.startsWith('/api/devices/') && rest === 'region' && method === 'POST') {
        this.bodies.push(body);
        const choice = body.region as RegionChoice;
        const country = (body.country as string | undefined) ?? device.country;
        const server = this.place(choice, country);
        if (!server)
          return fail(
            409,
            'region_full',
            `No server in ${regionLabel(choice)} has room right now. Choose another region or Automatic.`,
          );
        device.region_choice = choice;
        device.country = country;
        if (device.node?.id === server.id) return json(200, { device, moved: false });
        const { full: _full, ...node } = server;
        device.node = node;
        device.config_changed_at = new Date().toISOString();
        return json(200, { device, moved: true });
      }
      if (path.startsWith('/api/devices/') && rest === 'privacy' && method === 'PATCH') {
        this.bodies.push(body);
        // As provisioning: "custom" needs routes that are networks (a rough check: digits, dots, colons, a slash).
        const split = (body.split_tunnel as FakeDevice['split_tunnel'] | undefined) ?? device.split_tunnel;
        const routes = split === 'custom' ? ((body.custom_routes as string[] | undefined) ?? device.custom_routes) : [];
        const bad = routes.find((route) => !/^[0-9a-fA-F.:]+(\/\d{1,3})?$/.test(route));
        if (bad !== undefined)
          return fail(
            422,
            'invalid_routes',
            `"${bad}" is not an IP address or network. Write one per line, such as 192.168.1.0/24 or 2001:db8::/32.`,
          );
        if (split === 'custom' && routes.length === 0)
          return fail(
            422,
            'invalid_routes',
            'Add at least one route, such as 192.168.1.0/24, or choose another option.',
          );
        const before = JSON.stringify([device.blocking, device.split_tunnel, device.custom_routes]);
        device.blocking = (body.blocking as string[] | undefined) ?? device.blocking;
        device.split_tunnel = split;
        device.custom_routes = routes;
        const after = JSON.stringify([device.blocking, device.split_tunnel, device.custom_routes]);
        return json(200, { device, config_changed: after !== before });
      }
      if (path.startsWith('/api/devices/') && rest === 'config-link' && method === 'POST')
        return json(200, {
          url: `${this.filesUrl}/api/device/${device.id}/config?token=fake-conf`,
          qr_url: `${this.filesUrl}/api/device/${device.id}/config?format=qr&token=fake-qr`,
          expires_in: 60,
        });
      if (path.startsWith('/api/devices/') && rest === '' && method === 'PATCH') {
        Object.assign(device, body);
        return json(200, { device });
      }
    }
    this.unexpected.push(`${method} ${path}`);
    return fail(404, 'not_found', `The fake API has no ${method} ${path}.`);
  }
}
