/**
 * The bus's identities kept in one folder (var/nats/identity for `make dev`, var/bus for Compose;
 * in production the same files on the control plane's host or in its secret store), never in
 * the repository:
 *
 *   keys.json         the operator, system account, account and signing-key seeds (mode 0600)
 *   revocations.json  user key → when it was revoked; folded into every account JWT signed
 *   auth.conf         the servers' operator settings (nats.conf includes it): no secret in it
 *   creds/<user>.creds  each process's user JWT and seed (mode 0600), NATS_CREDS points at one
 *
 *   npx tsx scripts/bus-identities.ts <folder> issue <gateway|identity|…|node-<name>>
 *   npx tsx scripts/bus-identities.ts <folder> revoke <user> --url nats://… [--ca ca.pem]
 *   npx tsx scripts/bus-identities.ts <folder> server-auth <resolver folder on the server>
 *   npx tsx scripts/bus-identities.ts <folder> rotate-signing-key --url nats://… [--ca ca.pem]
 *   npx tsx scripts/bus-identities.ts <folder> retire-signing-key --url nats://… [--ca ca.pem]
 *
 * A user is issued without touching any server; a revocation is pushed to the running servers
 * over the system account and kept in revocations.json for every later account JWT.
 */
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { busAccess, isBusPrincipal, operatorUser } from '@qw/contracts';
import {
  type BusIdentities,
  type BusIdentity,
  type BusKeys,
  createBusKeys,
  credsFile,
  credsPublicKey,
  keepRevocations,
  natsOperatorConfig,
  openBusIdentities,
  pushAccountJwtTo,
  retireSigningKey,
  rotateSigningKey,
} from '@qw/platform/bus';

const readJson = <T>(file: string, fallback: T): T =>
  existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as T) : fallback;

export { credsFile, openBusIdentities };

/**
 * Issues `user` (a bus principal, `admin`, or `node-<name>`) and writes its .creds; answers the
 * file. `mode` 0644 is for a file bind-mounted into a container whose process is not root (the
 * folder stays 0700).
 */
export async function issueCreds(
  folder: string,
  identities: BusIdentities,
  user: string,
  mode = 0o600,
): Promise<string> {
  let identity: BusIdentity;
  if (user === operatorUser || isBusPrincipal(user)) identity = await identities.issuePrincipal(user);
  else if (user.startsWith('node-')) identity = await identities.issueNode(user.slice('node-'.length));
  else throw new Error(`no such bus user: ${user} (one of ${Object.keys(busAccess).join(', ')}, admin, node-<name>)`);
  const file = credsFile(folder, user);
  writeFileSync(file, identity.creds, { mode });
  chmodSync(file, mode);
  return file;
}

/** Writes auth.conf, the servers' operator settings, with every revocation so far. */
export async function writeServerAuth(folder: string, identities: BusIdentities, resolverDir: string): Promise<string> {
  const file = path.join(folder, 'auth.conf');
  writeFileSync(file, natsOperatorConfig(await identities.serverAuth(resolverDir)));
  return file;
}

/**
 * Revokes the key in `user`'s .creds, keeps the revocation, and pushes the account JWT to the
 * servers at `url` as the system user: they close the user's connections and refuse it.
 */
export async function revokeUser(
  folder: string,
  identities: BusIdentities,
  user: string,
  server: { url: string; caFile?: string | undefined },
): Promise<void> {
  const key = credsPublicKey(readFileSync(credsFile(folder, user), 'utf8'));
  // The folder's file is the list (provisioning adds the nodes it retires to it): nothing in it is undone.
  const revocations = keepRevocations(folder, { [key]: Math.floor(Date.now() / 1000) });
  Object.assign(identities.revocations, revocations);
  await pushAccountJwtTo(server, identities, await identities.accountJwt());
  // The next issue (or `make dev`) gives the user a new key.
  rmSync(credsFile(folder, user));
}

/**
 * Replaces the account's signing key in keys.json (`rotate`: a new one signs, the old one stays
 * listed; `retire`: the old one goes, and every user it signed is refused and disconnected),
 * pushes the account to the servers and rewrites auth.conf for servers started later.
 */
export async function changeSigningKey(
  folder: string,
  step: 'rotate' | 'retire',
  server: { url: string; caFile?: string | undefined },
): Promise<void> {
  const keysFile = path.join(folder, 'keys.json');
  const keys = readJson<BusKeys>(keysFile, createBusKeys());
  if (step === 'rotate' && keys.previousSigning) throw new Error('a rotation is under way: retire the old key first');
  const next = step === 'rotate' ? rotateSigningKey(keys) : retireSigningKey(keys);
  writeFileSync(keysFile, JSON.stringify(next, null, 2), { mode: 0o600 });
  const identities = openBusIdentities(folder);
  await pushAccountJwtTo(server, identities, await identities.accountJwt());
  const authFile = path.join(folder, 'auth.conf');
  const resolverDir = existsSync(authFile) ? /dir: "([^"]+)"/.exec(readFileSync(authFile, 'utf8'))?.[1] : undefined;
  if (resolverDir) await writeServerAuth(folder, identities, resolverDir);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [folder, command, subject] = process.argv.slice(2);
  const flag = (name: string) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const server = { url: flag('--url') ?? 'nats://127.0.0.1:4222', caFile: flag('--ca') };
  if (folder && (command === 'rotate-signing-key' || command === 'retire-signing-key')) {
    await changeSigningKey(folder, command === 'rotate-signing-key' ? 'rotate' : 'retire', server);
    console.log(
      command === 'rotate-signing-key'
        ? 'new signing key in use; issue every user again, then retire-signing-key'
        : 'old signing key retired; its users are refused',
    );
    process.exit(0);
  }
  if (!folder || !command || !subject) {
    console.error(
      'usage: bus-identities.ts <folder> issue <user> | revoke <user> --url … | server-auth <dir> | rotate-signing-key --url … | retire-signing-key --url …',
    );
    process.exit(64);
  }
  const identities = openBusIdentities(folder);
  if (command === 'issue') console.log(await issueCreds(folder, identities, subject));
  else if (command === 'server-auth') console.log(await writeServerAuth(folder, identities, subject));
  else if (command === 'revoke') {
    await revokeUser(folder, identities, subject, server);
    console.log(`${subject} revoked; the servers closed its connections`);
  } else {
    console.error(`unknown command ${command}`);
    process.exit(64);
  }
}
