import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { AppError, defineRpc } from '@qw/contracts';
import { captureLogs, deleteNamespace, sharedNatsUrl, testNamespace } from '@qw/testkit';
import { createPrivateKey } from 'node:crypto';
import { createSigner } from 'fast-jwt';
import {
  ForwardedAnswer,
  RpcClient,
  callerTokenSigner,
  callerTokenVerifier,
  connectBus,
  endpoint,
  generateCallerKeyPair,
  serveRpc,
  type BusConnection,
  type RpcServer,
} from '../src/index.ts';

const keys = generateCallerKeyPair();
const assert = callerTokenSigner(keys.privateKey);
const person = { userId: 'u-1', accountType: 'personal', isAdmin: false, emailVerified: true };

const addSeats = defineRpc(
  'probe.rpc.add-seats',
  Type.Object({ seats: Type.Integer({ minimum: 1 }) }),
  Type.Object({ total: Type.Integer() }),
);
const whoAmI = defineRpc(
  'probe.rpc.who-am-i',
  Type.Object({}),
  Type.Object({ userId: Type.Union([Type.String(), Type.Null()]) }),
);
const slow = defineRpc('probe.rpc.slow', Type.Object({}), Type.Object({}));
const broken = defineRpc('probe.rpc.broken', Type.Object({}), Type.Object({ n: Type.Integer() }));
const nobody = defineRpc('probe.rpc.nobody', Type.Object({}), Type.Object({}));
/** Forwarded: its answers are written through the response schema, and read unparsed. */
const seatsList = defineRpc(
  'probe.rpc.seats-list',
  Type.Object({ refuse: Type.Optional(Type.Boolean()) }),
  Type.Object({
    seats: Type.Array(Type.Object({ id: Type.Integer(), label: Type.String(), since: Type.Optional(Type.String()) })),
    total: Type.Integer(),
  }),
  { forwarded: true },
);

let bus: BusConnection;
let server: RpcServer;
let client: RpcClient;
const namespace = testNamespace();
const logs = captureLogs('probe');

beforeAll(async () => {
  bus = await connectBus({ url: sharedNatsUrl, name: 'rpc-test', namespace, logger: logs.logger });
  server = await serveRpc(bus, {
    service: 'probe',
    logger: logs.logger,
    verifyCaller: callerTokenVerifier(keys.publicKey),
    endpoints: [
      endpoint(addSeats, async ({ seats }) => {
        if (seats > 250) throw new AppError('quota_exceeded', 'Business 250+ covers 250 devices.');
        return { total: seats + 10 };
      }),
      endpoint(whoAmI, async (_data, caller) => ({ userId: caller.userId })),
      endpoint(slow, () => new Promise((resolve) => setTimeout(() => resolve({}), 1000))),
      endpoint(broken, async () => {
        throw new Error('database said no at 10.1.2.3');
      }),
      endpoint(seatsList, async ({ refuse }) => {
        if (refuse) throw new AppError('forbidden', 'Only owners see the seats.');
        // Fields the contract does not name, as a row spread into an answer would bring them.
        const seats = [
          { id: 1, label: 'Ada "the first"', secret_key: 'k-1' },
          { id: 2, label: 'Zoë', since: '2026-11-30', secret_key: 'k-2' },
        ];
        return { seats, total: 2, sealed: 'not for the browser' } as never;
      }),
    ],
  });
  client = new RpcClient(bus);
});

afterAll(async () => {
  await server.stop();
  await bus.close();
  await deleteNamespace(namespace);
});

describe('request/reply', () => {
  it('answers with the handler result and passes the caller its signed assertion proves', async () => {
    expect(await client.request(addSeats, { seats: 5 })).toEqual({ total: 15 });
    expect(await client.request(whoAmI, {}, assert(person))).toEqual({ userId: 'u-1' });
    expect(await client.request(whoAmI, {})).toEqual({ userId: null });
  });

  it('refuses a frame that names its own caller, and an assertion it cannot verify', async () => {
    const ask = async (frame: unknown) =>
      JSON.parse((await bus.nc.request(bus.ns.subject(whoAmI.subject), JSON.stringify(frame))).string());
    // The attack of the security review: a raw client names someone else as the caller.
    expect(await ask({ caller: { ...person, userId: 'victim' }, data: {} })).toMatchObject({
      ok: false,
      error: { code: 'invalid_token' },
    });
    const otherKeys = generateCallerKeyPair();
    const forged = callerTokenSigner(otherKeys.privateKey)({ ...person, userId: 'victim' }).assertion;
    expect(await ask({ caller_token: forged, data: {} })).toMatchObject({
      ok: false,
      error: { code: 'invalid_token' },
    });
    const expired = createSigner({
      key: createPrivateKey({ key: Buffer.from(keys.privateKey, 'base64'), format: 'der', type: 'pkcs8' })
        .export({ format: 'pem', type: 'pkcs8' })
        .toString(),
      algorithm: 'EdDSA',
      aud: 'quietwire-rpc',
      iss: 'gateway',
      expiresIn: 60_000,
      clockTimestamp: Date.now() - 120_000,
    })({ sub: 'victim', acct: 'personal', adm: true, ver: true });
    expect(await ask({ caller_token: expired, data: {} })).toMatchObject({
      ok: false,
      error: { code: 'invalid_token' },
    });
    expect(await ask({ caller_token: 'not.a.token', data: {} })).toMatchObject({
      ok: false,
      error: { code: 'invalid_token' },
    });
    expect(await ask({ caller_token: assert(person).assertion, data: {} })).toEqual({
      ok: true,
      data: { userId: 'u-1' },
    });
  });

  it("a forwarded answer is the contract's fields only, written once by the service and read unparsed", async () => {
    const forwarded = await client.forward(seatsList, {});
    expect(forwarded).toBeInstanceOf(ForwardedAnswer);
    const expected = {
      seats: [
        { id: 1, label: 'Ada "the first"' },
        { id: 2, label: 'Zoë', since: '2026-11-30' },
      ],
      total: 2,
    };
    expect(JSON.parse(forwarded.json)).toEqual(expected);
    expect(forwarded.json).not.toContain('secret_key');
    expect(forwarded.json).not.toContain('sealed');
    // The same contract asked as usual gives the same, parsed.
    expect(await client.request(seatsList, {})).toEqual(expected);
    // A refusal is still thrown with its code.
    await expect(client.forward(seatsList, { refuse: true })).rejects.toMatchObject({
      code: 'forbidden',
      message: 'Only owners see the seats.',
    });
    // Only a contract marked forwarded can be forwarded.
    await expect(client.forward(addSeats, { seats: 1 })).rejects.toThrow(/not a forwarded contract/);
  });

  it('will not forward a caller without its assertion', async () => {
    await expect(client.request(whoAmI, {}, person)).rejects.toThrow(/signed assertion/);
  });

  it('carries a domain error back with its code and message', async () => {
    await expect(client.request(addSeats, { seats: 300 })).rejects.toMatchObject({
      code: 'quota_exceeded',
      message: 'Business 250+ covers 250 devices.',
    });
  });

  it('refuses a request that breaks its schema before sending it, and the server refuses one that arrives', async () => {
    await expect(client.request(addSeats, { seats: 0 })).rejects.toMatchObject({ code: 'validation_failed' });
    const answer = await bus.nc.request(bus.ns.subject(addSeats.subject), JSON.stringify({ data: { seats: 'two' } }), {
      timeout: 2000,
    });
    expect(JSON.parse(answer.string())).toMatchObject({ ok: false, error: { code: 'validation_failed' } });
  });

  it('hides unexpected failures behind `internal`', async () => {
    const error = await client.request(broken, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('internal');
    expect((error as AppError).message).not.toContain('database said no');
    expect(logs.text()).toContain('rpc handler failed');
    expect(logs.text()).not.toContain('10.1.2.3');
  });

  it('tells "nobody answers" from "no answer in time"', async () => {
    await expect(client.request(nobody, {})).rejects.toMatchObject({ code: 'unavailable' });
    await expect(client.request(slow, {}, undefined, { timeoutMs: 200 })).rejects.toMatchObject({ code: 'timeout' });
  });
});
