import { fillSubject, ownerOf, type Envelope, type EventContract, type SubjectParams } from '@qw/contracts';
import {
  type BusConnection,
  type CallerVerifier,
  callerTokenVerifier,
  createEnvelope,
  createLogger,
  ensureStream,
  outboxSequenceHeader,
  type PlatformTables,
  type RpcEndpoint,
  type RpcServer,
  type RunningService,
  type ServiceDefinition,
  serveRpc,
} from '@qw/platform';
import { headers as natsHeaders } from '@nats-io/transport-node';
import type { Static, TSchema } from 'typebox';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { startTestBus, testCallerKeys, type TestBus } from './bus.ts';
import { launchService } from './launcher.ts';

/**
 * A service on its own, as it runs, for its integration tests: a database and a NATS server of the
 * test file's own (the product's permissions on), the streams it reads declared as their owners
 * declare them at their start, and whatever the test adds (the service, connections as those who
 * ask it, doubles of the services it asks), all ended by `stop()`, newest first.
 */
export type ServiceAlone = {
  database: TestDatabase;
  bus: TestBus;
  /** The operator's connection: publishes the owners' events and reads any stream. */
  admin: BusConnection;
  /** Starts a service in this process on this database and bus. */
  launch<DB extends PlatformTables>(definition: ServiceDefinition<DB>): Promise<RunningService<DB>>;
  /** A connection as that NATS user: a service, the gateway, or a node given its user by `bus.addNode`. */
  connect(user: string): Promise<BusConnection>;
  /**
   * Another service's RPCs answered by a test double under that service's own NATS user; callers
   * verified with the test keys unless told otherwise.
   */
  serve(service: string, endpoints: RpcEndpoint[], verifyCaller?: CallerVerifier): Promise<RpcServer>;
  /** Publishes an event on its owner's stream as the owner's relay does (its id as the message id). */
  publish<S extends TSchema>(
    contract: EventContract<S>,
    data: Static<S>,
    /** `outboxSequence`: the outbox row number the relay would send with it (`Qw-Outbox-Seq`). */
    options?: { at?: Date; params?: SubjectParams; outboxSequence?: number },
  ): Promise<Envelope<Static<S>>>;
  /** The newest event of that subject on its owner's stream. */
  lastEvent<T>(contract: EventContract): Promise<Envelope<T> | undefined>;
  stop(): Promise<void>;
};

/** `label` names the database and the connections; `streams` are the other owners' events the service reads. */
export async function startServiceAlone(
  label: string,
  streams: Record<string, readonly EventContract[]> = {},
): Promise<ServiceAlone> {
  const database = await createTestDatabase(label, undefined, { migrated: true, asyncCommit: true });
  const bus = await startTestBus().catch(async (error) => {
    await database.drop();
    throw error;
  });
  const cleanups: Array<() => Promise<void>> = [];
  const connect = async (user: string) => {
    const connection = await bus.connect(user, `${label}-${user}`);
    cleanups.push(() => connection.close());
    return connection;
  };
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await bus.stop();
    await database.drop();
  };
  try {
    const admin = await connect(bus.admin.user);
    for (const [owner, contracts] of Object.entries(streams)) await ensureStream(admin, owner, contracts);
    return {
      database,
      bus,
      admin,
      connect,
      stop,
      async launch(definition) {
        const service = await launchService(definition, { database, bus });
        cleanups.push(() => service.stop());
        return service;
      },
      async serve(service, endpoints, verifyCaller = callerTokenVerifier(testCallerKeys.publicKey)) {
        const logger = createLogger({ service: `${label}-${service}`, level: process.env.TEST_LOG_LEVEL ?? 'silent' });
        const served = await serveRpc(await connect(service), { service, logger, endpoints, verifyCaller });
        cleanups.push(() => served.stop());
        return served;
      },
      async publish(contract, data, options = {}) {
        const envelope = createEnvelope(contract, data, options.at);
        const subject = admin.ns.subject(fillSubject(contract.subject, options.params));
        const headers = natsHeaders();
        if (options.outboxSequence !== undefined) headers.set(outboxSequenceHeader, String(options.outboxSequence));
        await admin.js.publish(subject, JSON.stringify(envelope), { msgID: envelope.id, headers });
        return envelope;
      },
      async lastEvent<T>(contract: EventContract) {
        const message = await admin.jsm.streams.getMessage(admin.ns.stream(ownerOf(contract)), {
          last_by_subj: admin.ns.subject(contract.subject),
        });
        return message?.json<Envelope<T>>();
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
