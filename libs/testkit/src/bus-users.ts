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
  pushAccountJwt,
} from '@qw/platform/bus';

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
  const keys = createBusKeys();
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
  const admin = await keep(await identities.issuePrincipal(operatorUser));
  for (const principal of Object.keys(busAccess) as BusPrincipal[])
    await keep(await identities.issuePrincipal(principal));
  const system = await identities.issueSystemUser();
  return {
    identities,
    admin,
    system,
    issuedTo,
    /** Issues the node's user unless it has one (no server is edited or reloaded). */
    async addNode(name: string): Promise<void> {
      if (!issued.has(nodeUser(name))) await keep(await identities.issueNode(name));
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
