import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { serverProcess } from './processes.ts';

export const sharedNatsUrl = process.env.TEST_NATS_URL ?? process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** A subject and stream prefix of its own for one test file, so files never see each other's events. */
export function testNamespace(): string {
  return `t${randomBytes(5).toString('hex')}`;
}

/** Deletes the streams of a namespace (its consumers go with them). */
export async function deleteNamespace(namespace: string, url = sharedNatsUrl): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    const prefix = `${namespace.toUpperCase()}_`;
    for await (const name of jsm.streams.names()) {
      if (name.startsWith(prefix)) await jsm.streams.delete(name).catch(() => undefined);
    }
  } finally {
    await nc.close();
  }
}

/** The first port of the kernel's ephemeral range: outgoing connections take their ports from there on. */
function ephemeralFloor(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 0;
  } catch {
    return 0;
  }
}

/** Whether a server could listen on 127.0.0.1:`port` now (0: any port); answers the port it got. */
function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : undefined));
    });
  });
}

/** Where freePort picks from: above the well-known ports and the dev stack's, below the ephemeral range. */
const lowestPicked = 10_000;

/**
 * A port nothing listens on, for a server a test starts a little later. Picked at random below
 * the kernel's ephemeral range: a port listen(0) hands out comes from that range, which is also
 * where the kernel takes the local port of every outgoing connection, and a file's many
 * connections to Postgres and NATS once took a stack's port in the seconds before its gateway
 * listened (EADDRINUSE). Outside that range only another picker can take it.
 */
export async function freePort(): Promise<number> {
  const ceiling = ephemeralFloor();
  for (let attempt = 0; ceiling - lowestPicked > 1000 && attempt < 50; attempt++) {
    const port = await tryListen(lowestPicked + Math.floor(Math.random() * (ceiling - lowestPicked)));
    if (port) return port;
  }
  const port = await tryListen(0);
  if (!port) throw new Error('no free port');
  return port;
}

export type PrivateNats = {
  url: string;
  /** Where the server keeps JetStream's files (a test may damage them while it is down). */
  storeDir: string;
  stop(): Promise<void>;
  restart(downMs?: number): Promise<void>;
  kill(): Promise<void>;
  start(): Promise<void>;
};

/**
 * A NATS server with JetStream of the test's own, on its own port and store, for tests that
 * stop or restart the broker without disturbing anyone else.
 */
export async function startPrivateNats(
  binary = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server',
): Promise<PrivateNats> {
  const port = await freePort();
  const storeDir = await mkdtemp(path.join(tmpdir(), 'qw-nats-'));
  const server = serverProcess(
    () => spawn(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], { stdio: 'ignore' }),
    async () => {
      const nc = await connect({ servers: `127.0.0.1:${port}`, reconnect: false, timeout: 500 });
      try {
        await jetstreamManager(nc).then((jsm) => jsm.getAccountInfo());
      } finally {
        await nc.close();
      }
    },
  );

  await server.start();
  return {
    url: `nats://127.0.0.1:${port}`,
    storeDir,
    start: () => server.start(),
    kill: () => server.halt('SIGKILL'),
    restart: (downMs = 500) => server.restart('SIGTERM', downMs),
    async stop() {
      await server.halt('SIGTERM');
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}
