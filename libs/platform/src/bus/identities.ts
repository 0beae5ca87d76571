import {
  createAccount,
  createOperator,
  createUser,
  encodeAccount,
  encodeOperator,
  encodeUser,
  fmtCreds,
  fromSeed,
  type Account,
  type KeyPair,
  type User,
} from '@nats-io/jwt';
import { createPrivateKey, sign } from 'node:crypto';
import { connect, type Authenticator, type NatsConnection } from '@nats-io/transport-node';
import { busAccess, nodeBusAccess, nodeUser, operatorUser, type BusPrincipal } from '@qw/contracts';
import { natsMaxControlLine, natsPermissions, type NatsPermissions } from './access.ts';

/**
 * The seeds behind every bus identity (NATS decentralised authentication). The operator signs
 * the accounts; the system account is the servers' own (account updates and revocations travel
 * on it); the product account holds every stream and every user of the product; its signing key
 * signs the users, so that key can be replaced without changing the account's identity.
 */
export type BusKeys = {
  operator: string;
  system: string;
  account: string;
  signing: string;
  /** The signing key being replaced: the account still lists it until every user has been issued again. */
  previousSigning?: string | undefined;
};

/** One user as issued: its name (the inbox prefix and what bus-access.ts calls it), its public key, and its `.creds`. */
export type BusIdentity = { user: string; publicKey: string; jwt: string; seed: string; creds: string };

/** When each revoked user key was revoked (seconds): the server refuses every JWT of that key issued then or before. */
export type Revocations = Record<string, number>;

export const busOperatorName = 'quietwire';

export const busAccountName = 'QUIETWIRE';
export const systemAccountName = 'SYS';

const seedOf = (kp: KeyPair) => new TextDecoder().decode(kp.getSeed());
const pair = (seed: string) => fromSeed(new TextEncoder().encode(seed));

/** New keys for a new bus: kept outside the repository (var/ for development, a secret store in production). */
export function createBusKeys(): BusKeys {
  return {
    operator: seedOf(createOperator()),
    system: seedOf(createAccount()),
    account: seedOf(createAccount()),
    signing: seedOf(createAccount()),
  };
}

/**
 * The first step of replacing the account's signing key: a new key signs users from now on, the
 * old one stays listed (its users still connect) until `retireSigningKey`.
 */
export function rotateSigningKey(keys: BusKeys): BusKeys {
  return { ...keys, signing: seedOf(createAccount()), previousSigning: keys.signing };
}

/** The last step: the old signing key leaves the account, and with it every user it signed. */
export function retireSigningKey(keys: BusKeys): BusKeys {
  const { previousSigning: _, ...rest } = keys;
  return rest;
}

/** The nats-server configuration of an operator-mode server: who signs, the system account, and the accounts it starts with. */
export type NatsOperatorAuth = {
  operatorJwt: string;
  systemAccount: string;
  /** Where the server keeps the account JWTs pushed to it (the `full` resolver). */
  resolverDir: string;
  /** Account JWTs by public key, loaded at start; later versions arrive over the system account. */
  preload: Record<string, string>;
};

// Zero in an account JWT means none (no connections, no streams); -1 is no limit of ours.
const unlimitedAccount: Account['limits'] = {
  subs: -1,
  data: -1,
  payload: -1,
  imports: -1,
  exports: -1,
  wildcards: true,
  conn: -1,
  leaf: -1,
  mem_storage: -1,
  disk_storage: -1,
  streams: -1,
  consumer: -1,
  max_ack_pending: -1,
  mem_max_stream_bytes: -1,
  disk_max_stream_bytes: -1,
  max_bytes_required: false,
};

const userClaims = (permissions: NatsPermissions | 'all'): Partial<User> => ({
  subs: -1,
  data: -1,
  payload: -1,
  ...(permissions === 'all'
    ? {}
    : {
        pub: {
          allow: permissions.publish.allow,
          ...(permissions.publish.deny ? { deny: permissions.publish.deny } : {}),
        },
        sub: { allow: permissions.subscribe.allow },
      }),
});

/**
 * Issues and revokes the bus's users. A user carries its own permissions in its JWT, signed by
 * the account's signing key, so a server admits a user issued after it started without any
 * change to its configuration. Revocations live in the account JWT: the caller keeps
 * `revocations` (and passes them back in) and pushes the account JWT to the servers after each
 * revocation with `pushAccountJwt`.
 */
export class BusIdentities {
  readonly revocations: Revocations;
  private readonly operator: KeyPair;
  private readonly system: KeyPair;
  private readonly account: KeyPair;
  private readonly signing: KeyPair;
  private readonly previousSigning: KeyPair | undefined;

  constructor(keys: BusKeys, revocations: Revocations = {}) {
    this.operator = pair(keys.operator);
    this.system = pair(keys.system);
    this.account = pair(keys.account);
    this.signing = pair(keys.signing);
    this.previousSigning = keys.previousSigning ? pair(keys.previousSigning) : undefined;
    this.revocations = { ...revocations };
  }

  /** The product account's public key: the subject of its JWT and of its claims updates. */
  get accountKey(): string {
    return this.account.getPublicKey();
  }

  get systemAccountKey(): string {
    return this.system.getPublicKey();
  }

  operatorJwt(): Promise<string> {
    return encodeOperator(busOperatorName, this.operator, { system_account: this.systemAccountKey });
  }

  systemAccountJwt(): Promise<string> {
    return encodeAccount(
      systemAccountName,
      this.system,
      { limits: { ...unlimitedAccount, mem_storage: 0, disk_storage: 0, streams: 0, consumer: 0 } },
      { signer: this.operator },
    );
  }

  /** The product account with JetStream, the users' signing key(s), and every revocation so far. */
  accountJwt(): Promise<string> {
    return encodeAccount(
      busAccountName,
      this.account,
      {
        limits: unlimitedAccount,
        signing_keys: [this.signing, ...(this.previousSigning ? [this.previousSigning] : [])].map((key) =>
          key.getPublicKey(),
        ),
        revocations: { ...this.revocations },
      },
      { signer: this.operator },
    );
  }

  /** A new user (a fresh key each time) in the product account with exactly these permissions. */
  async issue(user: string, permissions: NatsPermissions | 'all'): Promise<BusIdentity> {
    const key = createUser();
    const jwt = await encodeUser(user, key, this.account, userClaims(permissions), { signer: this.signing });
    // The CONNECT line holds the JWT and the signature besides; a quarter of the line is theirs.
    if (jwt.length > natsMaxControlLine * 0.75)
      throw new Error(`the JWT of ${user} (${jwt.length} bytes) would not fit the servers' control line`);
    return identity(user, key, jwt);
  }

  /** The gateway's or a backend service's user, with what bus-access.ts gives it; `admin` gets everything. */
  issuePrincipal(principal: BusPrincipal | typeof operatorUser): Promise<BusIdentity> {
    return principal === operatorUser
      ? this.issue(operatorUser, 'all')
      : this.issue(principal, natsPermissions(principal, busAccess[principal]));
  }

  /** A node agent's user: its own subjects and consumer only. */
  issueNode(node: string): Promise<BusIdentity> {
    return this.issue(nodeUser(node), natsPermissions(nodeUser(node), nodeBusAccess(node)));
  }

  /** A user of the system account: it may push account updates to the servers (and see their events). */
  async issueSystemUser(): Promise<BusIdentity> {
    const key = createUser();
    return identity('system', key, await encodeUser('system', key, this.system, userClaims('all')));
  }

  /**
   * Revokes every JWT issued so far to this user key and answers the account JWT that says so,
   * to be pushed to the servers (`pushAccountJwt`).
   */
  revoke(userPublicKey: string, at = new Date()): Promise<string> {
    this.revocations[userPublicKey] = Math.floor(at.getTime() / 1000);
    return this.accountJwt();
  }

  /** What an operator-mode server needs: the operator, the system account, and both accounts to start with. */
  async serverAuth(resolverDir: string): Promise<NatsOperatorAuth> {
    return {
      operatorJwt: await this.operatorJwt(),
      systemAccount: this.systemAccountKey,
      resolverDir,
      preload: {
        [this.systemAccountKey]: await this.systemAccountJwt(),
        [this.accountKey]: await this.accountJwt(),
      },
    };
  }
}

function identity(user: string, key: KeyPair, jwt: string): BusIdentity {
  return {
    user,
    publicKey: key.getPublicKey(),
    jwt,
    seed: seedOf(key),
    creds: new TextDecoder().decode(fmtCreds(jwt, key)),
  };
}

/** What a `.creds` file's content holds between `-----BEGIN <block>-----` and its END line. */
function credsBlock(creds: string, block: string, what: string): string {
  const value = new RegExp(`-----BEGIN ${block}-----\\s*([^\\s-][^\\s]*)\\s*------END ${block}------`).exec(creds)?.[1];
  if (!value) throw new Error(`not a NATS credentials file: no ${what} in it`);
  return value;
}

/** The user JWT of a `.creds` file's content. */
export function credsJwt(creds: string): string {
  return credsBlock(creds, 'NATS USER JWT', 'user JWT');
}

/** The user key's seed of a `.creds` file's content. */
export function credsSeed(creds: string): string {
  return credsBlock(creds, 'USER NKEY SEED', 'user seed');
}

/**
 * A JWT's claims, read without checking its signature: here they only name a user or a key, and
 * the servers check the signature at every connect. `decode` of @nats-io/jwt checks it with a
 * pure-JavaScript Ed25519, milliseconds of CPU per call, and every connection read its
 * credentials' name that way (issue #24: a tenth of a test stack's start with the nonce's signing).
 */
export function jwtClaims(jwt: string): { sub: string; name: string } {
  const payload = jwt.split('.')[1];
  if (!payload) throw new Error('not a JWT');
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub: string; name: string };
}

/** Ed25519's PKCS #8 wrapping of a 32-byte seed (RFC 8410), for Node's own signing. */
const ed25519Pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * The connection's authenticator for a `.creds` file (`read` answers its content, at each connect
 * and reconnect): the JWT, the user's key, and the server's nonce signed with the seed. The same
 * as the client's `credsAuthenticator` (Ed25519 signatures are deterministic: the same bytes), but
 * signed by Node's crypto: the client signs with a pure-JavaScript Ed25519 and derives the key
 * pair twice, milliseconds of CPU for every connection (issue #24).
 */
export function credsSigner(read: () => string): Authenticator {
  return (nonce?: string) => {
    const creds = read();
    const jwt = credsJwt(creds);
    // The key pair's class has the raw seed; the KeyPair type @nats-io/jwt exports leaves it out.
    const pair = fromSeed(new TextEncoder().encode(credsSeed(creds))) as KeyPair & { getRawSeed(): Uint8Array };
    const rawSeed = pair.getRawSeed();
    const key = createPrivateKey({
      key: Buffer.concat([ed25519Pkcs8Prefix, rawSeed]),
      format: 'der',
      type: 'pkcs8',
    });
    const sig = nonce ? sign(null, Buffer.from(nonce, 'utf8'), key).toString('base64') : '';
    return { jwt, nkey: jwtClaims(jwt).sub, sig };
  };
}

/** The user key a `.creds` file holds (what a revocation names). */
export function credsPublicKey(creds: string): string {
  return jwtClaims(credsJwt(creds)).sub;
}

/** The user name a `.creds` file carries (our users are named as bus-access.ts names them). */
export function credsUser(creds: string): string {
  return jwtClaims(credsJwt(creds)).name;
}

/**
 * Sends an account JWT to every server of the cluster over the system account
 * (`$SYS.REQ.ACCOUNT.<account>.CLAIMS.UPDATE`, which each server with the `full` resolver
 * stores and applies): new limits, signing keys, and revocations, whose users the servers
 * disconnect at once. `nc` is a connection of a system-account user. Answers once a server
 * says it applied it.
 */
export async function pushAccountJwt(nc: NatsConnection, accountJwt: string): Promise<void> {
  const account = jwtClaims(accountJwt).sub;
  const answer = await nc.request(`$SYS.REQ.ACCOUNT.${account}.CLAIMS.UPDATE`, accountJwt, { timeout: 5000 });
  const body = answer.json<{ error?: { description?: string; code?: number } }>();
  if (body.error) throw new Error(`account update refused: ${body.error.description ?? JSON.stringify(body.error)}`);
}

/** Pushes an account JWT to the servers at `url` as a system user issued for that one call. */
export async function pushAccountJwtTo(
  server: { url: string; caFile?: string | undefined },
  identities: BusIdentities,
  accountJwt: string,
): Promise<void> {
  const system = await identities.issueSystemUser();
  const nc = await connect({
    servers: server.url.split(',').map((url) => url.trim()),
    authenticator: credsSigner(() => system.creds),
    ...(server.caFile ? { tls: { caFile: server.caFile } } : {}),
  });
  try {
    await pushAccountJwt(nc, accountJwt);
  } finally {
    await nc.close();
  }
}
