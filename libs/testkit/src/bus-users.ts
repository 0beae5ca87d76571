import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { busAccess, nodeUser, operatorUser, type BusPrincipal } from '@qw/contracts';
import {
  BusIdentities,
  type BusIdentity,
  busKeysFile,
  createBusKeys,
  keepRevocations,
  type NatsOperatorAuth,
  pushAccountJwt,
} from '@qw/platform/bus';

/**
 * What every test bus and cluster of a process starts with, made once per process: the bus's keys,
 * the users of the operator, the gateway and each service, the system user and the JWTs a server
 * starts with. Signing them (ed25519 in JavaScript) cost half a second or more per bus, a stack's
 * biggest step. Each bus still has its own server, identity folder and revocations: a user a
 * test revokes on its bus stays valid on the next file's, whose account lists no revocation.
 */
async function startOfEveryBus() {
  const keys = createBusKeys();
  const identities = new BusIdentities(keys);
  const principals = [await identities.issuePrincipal(operatorUser)];
  for (const principal of Object.keys(busAccess) as BusPrincipal[])
    principals.push(await identities.issuePrincipal(principal));
  const system = await identities.issueSystemUser();
  const { resolverDir: _, ...serverJwts } = await identities.serverAuth('');
  return { keys, principals, system, serverJwts };
}

let processStart: ReturnType<typeof startOfEveryBus> | undefined;

/** Node users this process issued, by node name: the next bus adding the same node gets the same one. */
const nodeUsers = new Map<string, BusIdentity>();

/** A user of a test bus: the name the server knows, its public key, its `.creds` text and file. */
export type IssuedUser = { user: string; publicKey: string; creds: string; file: string };

/**
 * The users of a test bus or cluster, issued as the product issues them (libs/platform
 * identities.ts): the operator and every principal at start, a node when it is added, each kept
 * as a `.creds` file in `dir`. `where` names the bus in the error for a user nobody issued.
 * `dir` is also the bus's identity folder (keys.json, revocations.json), as provisioning reads
 * it (BUS_IDENTITY_DIR) to issue and revoke enrolled nodes' users.
 */
export async function issueTestBusUsers(dir: string, where: string) {
  processStart ??= startOfEveryBus();
  const { keys, principals, system, serverJwts } = await processStart;
  await writeFile(busKeysFile(dir), JSON.stringify(keys, null, 2), { mode: 0o600 });
  const identities = new BusIdentities(keys);
  const issued = new Map<string, IssuedUser>();
  const keep = async (identity: BusIdentity) => {
    const file = path.join(dir, `${identity.user}.creds`);
    await writeFile(file, identity.creds, { mode: 0o600 });
    const credentials = { user: identity.user, publicKey: identity.publicKey, creds: identity.creds, file };
    issued.set(identity.user, credentials);
    return credentials;
  };
  const issuedTo = (user: string) => {
    const credentials = issued.get(user);
    if (!credentials) throw new Error(`no user ${user} on this ${where} (a node is added with addNode)`);
    return credentials;
  };
  for (const identity of principals) await keep(identity);
  return {
    identities,
    admin: issuedTo(operatorUser),
    system,
    issuedTo,
    /** What an operator-mode server of this bus starts with (nothing revoked yet), its resolver in `resolverDir`. */
    serverAuth: (resolverDir: string): NatsOperatorAuth => ({ ...serverJwts, resolverDir }),
    /**
     * Issues the node's user unless it has one (no server is edited or reloaded): the user this
     * process issued the node before, unless this bus revoked its key.
     */
    async addNode(name: string): Promise<void> {
      if (issued.has(nodeUser(name))) return;
      const before = nodeUsers.get(name);
      if (before && !(before.publicKey in identities.revocations)) await keep(before);
      else {
        const identity = await identities.issueNode(name);
        if (!before) nodeUsers.set(name, identity);
        await keep(identity);
      }
    },
    /** Revokes the user and pushes the account to the servers over `$SYS`, as the system user connected by `connectAs`. */
    async revoke(user: string, connectAs: (creds: string) => Promise<NatsConnection>): Promise<void> {
      // With provisioning's revocations (the folder's file), so none of them is undone.
      Object.assign(identities.revocations, keepRevocations(dir, {}));
      const accountJwt = await identities.revoke(issuedTo(user).publicKey);
      keepRevocations(dir, identities.revocations);
      const nc = await connectAs(system.creds);
      try {
        await pushAccountJwt(nc, accountJwt);
      } finally {
        await nc.close();
      }
      issued.delete(user);
    },
  };
}
