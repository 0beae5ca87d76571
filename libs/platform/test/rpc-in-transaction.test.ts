import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionBuilder } from 'kysely';
import { Type } from 'typebox';
import { defineRpc } from '@qw/contracts';
import {
  captureLogs,
  createTestDatabase,
  deleteNamespace,
  sharedNatsUrl,
  testNamespace,
  type TestDatabase,
} from '@qw/testkit';
import {
  RpcClient,
  allowRpcInTransactions,
  connectBus,
  connectDatabase,
  endpoint,
  inTransaction,
  serveRpc,
  refuseEveryCallerToken,
  refuseRpcInTransactions,
  type BusConnection,
  type Database,
  type RpcServer,
} from '../src/index.ts';

// Nothing remote under a lock (issue #21): the testkit makes RpcClient.request refuse to run while
// a transaction is open, so any service's test that reaches such a call fails.
const echo = defineRpc('probe.rpc.echo', Type.Object({ n: Type.Integer() }), Type.Object({ n: Type.Integer() }));

let bus: BusConnection;
let server: RpcServer;
let client: RpcClient;
let testDb: TestDatabase;
let database: Database<Record<string, never>>;
const namespace = testNamespace();
const logs = captureLogs('probe');

beforeAll(async () => {
  testDb = await createTestDatabase('rpcintx');
  database = connectDatabase(testDb.adminUrl, 'public', 2);
  bus = await connectBus({ url: sharedNatsUrl, name: 'rpc-in-tx-test', namespace, logger: logs.logger });
  server = await serveRpc(bus, {
    service: 'probe',
    logger: logs.logger,
    verifyCaller: refuseEveryCallerToken,
    endpoints: [endpoint(echo, async ({ n }) => ({ n }))],
  });
  client = new RpcClient(bus);
});

afterAll(async () => {
  await server?.stop();
  await bus?.close();
  await deleteNamespace(namespace);
  await database?.db.destroy();
  await testDb?.drop();
});

describe('an RPC inside an open transaction', () => {
  it('is refused, naming the RPC, and the transaction rolls back', async () => {
    const asked = database.db.transaction().execute(async () => {
      expect(inTransaction()).toBe(true);
      return client.request(echo, { n: 1 });
    });
    await expect(asked).rejects.toThrow('probe.rpc.echo: asked inside an open transaction');
  });

  it('is refused deep inside the transaction too (after queries, in nested calls)', async () => {
    const deep = async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return client.request(echo, { n: 2 });
    };
    await expect(
      database.db.transaction().execute(async (tx) => {
        await tx.selectNoFrom((eb) => eb.val(1).as('one')).execute();
        return deep();
      }),
    ).rejects.toThrow('asked inside an open transaction');
  });

  it('is allowed before the transaction starts, after it ends, and from work it started that outlives it', async () => {
    expect(inTransaction()).toBe(false);
    expect(await client.request(echo, { n: 3 })).toEqual({ n: 3 });
    let later: Promise<{ n: number }> | undefined;
    await database.db.transaction().execute(async () => {
      later = new Promise((resolve) => setTimeout(resolve, 20)).then(() => client.request(echo, { n: 4 }));
    });
    expect(await later).toEqual({ n: 4 });
    expect(inTransaction()).toBe(false);
  });
});

describe('a benchmark, which runs as production does', () => {
  it('switches the check off: kysely runs transactions as its own, and an RPC inside one is asked', async () => {
    const tracked = () => Object.hasOwn(TransactionBuilder.prototype, Symbol.for('qw.transaction-scope'));
    expect(tracked()).toBe(true);
    allowRpcInTransactions();
    try {
      expect(tracked()).toBe(false);
      const answered = await database.db.transaction().execute(async () => {
        expect(inTransaction()).toBe(false);
        return client.request(echo, { n: 5 });
      });
      expect(answered).toEqual({ n: 5 });
    } finally {
      // The worker's next files share these modules: the check goes back on for them.
      refuseRpcInTransactions();
    }
    expect(tracked()).toBe(true);
    await expect(database.db.transaction().execute(() => client.request(echo, { n: 6 }))).rejects.toThrow(
      'asked inside an open transaction',
    );
  });
});
