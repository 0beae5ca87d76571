import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decode, type User } from '@nats-io/jwt';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { busAccess, nodeBusAccess, nodeUser, type BusPrincipal } from '@qw/contracts';
import { freePort, serverProcess, type ServerProcess } from '@qw/testkit';
import {
  BusIdentities,
  type BusKeys,
  createBusKeys,
  credsSigner,
  credsUser,
  jwtClaims,
  natsPermissions,
  natsServerConfig,
  pushAccountJwt,
  retireSigningKey,
  rotateSigningKey,
} from '../src/bus/index.ts';

const claimsOf = (jwt: string) => decode<User>(jwt);

describe('a user as BusIdentities issues it', () => {
  const identities = new BusIdentities(createBusKeys());

  it("carries exactly bus-access.ts's permissions for every principal and a node, under its own name", async () => {
    const users: Array<{ user: string; issue: () => ReturnType<BusIdentities['issueNode']>; want: unknown }> = [
      ...(Object.keys(busAccess) as BusPrincipal[]).map((principal) => ({
        user: principal,
        issue: () => identities.issuePrincipal(principal),
        want: natsPermissions(principal, busAccess[principal]),
      })),
      {
        user: nodeUser('eu-1'),
        issue: () => identities.issueNode('eu-1'),
        want: natsPermissions(nodeUser('eu-1'), nodeBusAccess('eu-1')),
      },
    ];
    for (const { user, issue, want } of users) {
      const issued = await issue();
      const claims = claimsOf(issued.jwt);
      expect(claims.name).toBe(user);
      expect(credsUser(issued.creds)).toBe(user);
      expect(claims.nats.issuer_account).toBe(identities.accountKey);
      const { publish, subscribe } = want as ReturnType<typeof natsPermissions>;
      expect(claims.nats.pub).toEqual({ allow: publish.allow, ...(publish.deny ? { deny: publish.deny } : {}) });
      expect(claims.nats.sub).toEqual({ allow: subscribe.allow });
    }
  });

  it("signs the server's nonce with Node's Ed25519 exactly as the client's own authenticator does", async () => {
    const issued = await identities.issueNode('eu-2');
    const nonce = 'Zm9vYmFyLW5vbmNlLTEyMw';
    const ours = credsSigner(() => issued.creds)(nonce);
    const theirs = credsAuthenticator(new TextEncoder().encode(issued.creds))(nonce);
    expect(ours).toEqual(theirs);
    expect(ours).toMatchObject({ jwt: issued.jwt, nkey: issued.publicKey });
    expect((ours as { sig: string }).sig.length).toBeGreaterThan(80);
    // Read without checking the signature, the claims are the ones the checking decode reads.
    expect(jwtClaims(issued.jwt)).toMatchObject({ sub: claimsOf(issued.jwt).sub, name: nodeUser('eu-2') });
    expect(() => credsSigner(() => 'no credentials here')(nonce)).toThrow(/no user JWT/);
  });

  it('gives each issue a new key, and refuses a user whose JWT would not fit a CONNECT line', async () => {
    const [a, b] = [await identities.issueNode('eu-1'), await identities.issueNode('eu-1')];
    expect(a.publicKey).not.toBe(b.publicKey);
    const huge = Array.from({ length: 30_000 }, (_, i) => `some.long.subject.name.${i}`);
    await expect(
      identities.issue('huge', { publish: { allow: huge }, subscribe: { allow: ['_INBOX_U.huge.>'] } }),
    ).rejects.toThrow(/would not fit/);
  });
});

/**
 * Replacing the account's signing key on a running server: users of the old key keep working
 * while both are listed, and are refused and disconnected once the old key is retired.
 */
describe("the account's signing key, replaced while the server runs", () => {
  let keys: BusKeys = createBusKeys();
  let dir: string;
  let url: string;
  let server: ServerProcess;
  let system: NatsConnection;

  const connectWith = (creds: string) =>
    connect({ servers: url, authenticator: credsAuthenticator(new TextEncoder().encode(creds)), reconnect: false });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'qw-identities-'));
    const port = await freePort();
    url = `nats://127.0.0.1:${port}`;
    const identities = new BusIdentities(keys);
    const configFile = path.join(dir, 'nats.conf');
    await writeFile(
      configFile,
      natsServerConfig({
        listen: `127.0.0.1:${port}`,
        storeDir: path.join(dir, 'store'),
        operator: await identities.serverAuth(path.join(dir, 'accounts')),
      }),
    );
    const systemCreds = (await identities.issueSystemUser()).creds;
    server = serverProcess(
      () => spawn(process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server', ['-c', configFile], { stdio: 'ignore' }),
      async () => {
        system = await connectWith(systemCreds);
      },
    );
    await server.start();
  });
  afterAll(async () => {
    await system?.close();
    await server?.halt('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps the old users until the old key is retired, then closes and refuses them', async () => {
    const before = await new BusIdentities(keys).issuePrincipal('gateway');
    const open = await connectWith(before.creds);
    const closed = open.closed();

    keys = rotateSigningKey(keys);
    const rotating = new BusIdentities(keys);
    await pushAccountJwt(system, await rotating.accountJwt());
    const after = await rotating.issuePrincipal('gateway');
    for (const creds of [before.creds, after.creds]) await (await connectWith(creds)).close();
    expect(open.isClosed()).toBe(false);

    keys = retireSigningKey(keys);
    await pushAccountJwt(system, await new BusIdentities(keys).accountJwt());
    const outcome = await Promise.race([
      closed.then(() => 'closed'),
      new Promise((resolve) => setTimeout(() => resolve('still open 5 s after the server applied it'), 5000)),
    ]);
    expect(outcome).toBe('closed');
    await expect(connectWith(before.creds)).rejects.toThrow(/Authorization Violation/i);
    await (await connectWith(after.creds)).close();
  });
});
