/**
 * `make dev` runs its own NATS server with JetStream and authentication on, as production does:
 * one user per process with the permissions of libs/contracts bus-access.ts, passwords from
 * var/dev-secrets.json. It listens on DEV_NATS_PORT (4223 by default), beside any NATS server
 * the machine already runs, over TLS with a certificate of a development CA made on the first run
 * (var/nats/tls; clients verify the server with its ca.pem, NATS_CA_FILE).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { busAccess, nodeBusAccess, nodeUser, type BusPrincipal } from '@qw/contracts';
import { ensureNatsCertificates, natsPermissions, natsServerConfig, type NatsUser } from '@qw/platform/bus';

export const busPrincipals = Object.keys(busAccess) as BusPrincipal[];

/** The development CA and the dev server's certificate, made once and kept. */
export function devNatsTls() {
  return ensureNatsCertificates(path.resolve('var/nats/tls'));
}

export function devBusUsers(nodes: string[]): string[] {
  return ['admin', ...busPrincipals, ...nodes.map(nodeUser)];
}

export function writeDevBusConfig(options: {
  port: number;
  nodes: string[];
  password: (user: string) => string;
}): string {
  const dir = path.resolve('var/nats');
  mkdirSync(path.join(dir, 'store'), { recursive: true });
  const users: NatsUser[] = [
    { user: 'admin', password: { value: options.password('admin') }, permissions: 'all' },
    ...busPrincipals.map((principal) => ({
      user: principal,
      password: { value: options.password(principal) },
      permissions: natsPermissions(principal, busAccess[principal]),
    })),
    ...options.nodes.map((node) => ({
      user: nodeUser(node),
      password: { value: options.password(nodeUser(node)) },
      permissions: natsPermissions(nodeUser(node), nodeBusAccess(node)),
    })),
  ];
  const file = path.join(dir, 'nats.conf');
  writeFileSync(
    file,
    natsServerConfig({
      listen: `127.0.0.1:${options.port}`,
      storeDir: path.join(dir, 'store'),
      users,
      tls: devNatsTls(),
      header: 'Written by `make dev` from libs/contracts/src/bus-access.ts; passwords from var/dev-secrets.json.',
    }),
    { mode: 0o600 },
  );
  return file;
}
