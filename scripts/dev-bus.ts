/**
 * `make dev` runs its own NATS server with JetStream and authentication on, as production does:
 * operator mode, one user per process issued as a JWT with the permissions of libs/contracts
 * bus-access.ts (scripts/bus-identities.ts; keys and .creds in var/nats/identity, never
 * committed). It listens on DEV_NATS_PORT (4223 by default), beside any NATS server the machine
 * already runs, over TLS with a certificate of a development CA made on the first run
 * (var/nats/tls; clients verify the server with its ca.pem, NATS_CA_FILE).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { busAccess, nodeUser, operatorUser, type BusPrincipal } from '@qw/contracts';
import { ensureNatsCertificates, natsServerConfig } from '@qw/platform/bus';
import { issueCreds, openBusIdentities, writeServerAuth } from './bus-identities.ts';

export const busPrincipals = Object.keys(busAccess) as BusPrincipal[];

/** Where `make dev` keeps the bus's keys, revocations and each process's .creds. */
export const devIdentityFolder = path.resolve('var/nats/identity');

/** The development CA and the dev server's certificate, made once and kept. */
export function devNatsTls() {
  return ensureNatsCertificates(path.resolve('var/nats/tls'));
}

export function devBusUsers(nodes: string[]): string[] {
  return [operatorUser, ...busPrincipals, ...nodes.map(nodeUser)];
}

/**
 * Writes the dev server's configuration and issues each user's .creds again, so permissions
 * follow bus-access.ts as it is now (a node added later is issued the same way, with no change
 * to the server); answers the configuration file and each user's .creds file.
 */
export async function writeDevBusConfig(options: {
  port: number;
  nodes: string[];
}): Promise<{ configFile: string; creds: Record<string, string> }> {
  const dir = path.resolve('var/nats');
  mkdirSync(path.join(dir, 'store'), { recursive: true });
  const identities = openBusIdentities(devIdentityFolder);
  await writeServerAuth(devIdentityFolder, identities, path.join(dir, 'accounts'));
  const creds: Record<string, string> = {};
  for (const user of devBusUsers(options.nodes)) creds[user] = await issueCreds(devIdentityFolder, identities, user);
  const configFile = path.join(dir, 'nats.conf');
  writeFileSync(
    configFile,
    natsServerConfig({
      listen: `127.0.0.1:${options.port}`,
      storeDir: path.join(dir, 'store'),
      tls: devNatsTls(),
      includes: [path.relative(dir, path.join(devIdentityFolder, 'auth.conf'))],
      header: 'Written by `make dev`; the operator settings (auth.conf) by scripts/bus-identities.ts.',
    }),
    { mode: 0o600 },
  );
  return { configFile, creds };
}
