import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { connect as connectSocket, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { nodeUser } from '@qw/contracts';
import { connectBus, credsSigner, natsServerConfig } from '@qw/platform/bus';
import { createLogger } from '@qw/platform/logger';
import { testNatsCertificates, type BusEnv, type TestBus } from './bus.ts';
import { issueTestBusUsers } from './bus-users.ts';
import { freePort } from './nats.ts';
import { serverProcess, type ServerProcess } from './processes.ts';

const run = promisify(execFile);

/** Whether this machine can run a cluster in namespaces: root, `ip`, `socat` and nats-server. */
export async function natsClusterProblem(binary = natsBinary()): Promise<string | null> {
  if (process.getuid?.() !== 0) return 'the NATS cluster needs root (network namespaces)';
  for (const tool of ['ip', 'socat', binary]) {
    try {
      await run('sh', ['-c', `command -v ${tool}`]);
    } catch {
      return `the NATS cluster needs ${tool}`;
    }
  }
  return null;
}

function natsBinary(): string {
  return process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
}

/** One server of the cluster: a "machine" of its own (a network namespace with one address). */
export type ClusterServer = {
  name: string;
  namespace: string;
  /** Its address inside the lab, where the other servers' routes reach it. */
  address: string;
  /** Where clients on this machine reach it: a loopback port relayed into its namespace. */
  url: string;
  /** Where it keeps JetStream's files. */
  storeDir: string;
  /** True while its process runs. */
  running: boolean;
};

export type NatsCluster = TestBus & {
  servers: ClusterServer[];
  /** SIGKILL: the machine loses power. */
  kill(index: number): Promise<void>;
  /** Starts a killed or stopped server again on the same store; answers once it serves JetStream. */
  start(index: number): Promise<void>;
  /**
   * Cuts the machine off: its link to the others goes down and clients lose their connections
   * to it (their next attempt is refused), as when its network fails.
   */
  cut(index: number): Promise<void>;
  heal(index: number): Promise<void>;
  /** The files of a stream's messages on one server (…/streams/<stream>/msgs/*.blk). */
  messageBlocks(index: number, stream: string): Promise<string[]>;
};

/**
 * Three NATS servers with JetStream, each in a network namespace of its own (a "machine") joined
 * to a bridge in a namespace of the test's own by a veth link, routed to each other as one
 * cluster, in operator mode with the product's users (identities.ts) and TLS for clients, as in
 * production. A server can be killed and started again and a machine cut off and healed.
 *
 * The test's processes stay in the host's namespace: each server is reached through a loopback
 * port relayed over a Unix socket into its namespace (socat), so no address outside the lab's
 * namespaces receives anything. Servers do not advertise their lab addresses to clients.
 */
export async function startNatsCluster(
  options: { size?: number; streamReplicas?: number; outboxRetentionMs?: number; binary?: string } = {},
): Promise<NatsCluster> {
  const size = options.size ?? 3;
  const binary = options.binary ?? natsBinary();
  const id = randomBytes(3).toString('hex');
  const octet = 1 + (parseInt(id.slice(0, 2), 16) % 250);
  const hub = `qwh-${id}`;
  const bridge = `br${id}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'qw-nats-cluster-'));
  const ip = async (args: string[]) => void (await run('ip', args));
  const tls = testNatsCertificates();
  const users = await issueTestBusUsers(dir, 'cluster');
  const { admin, issuedTo } = users;

  await ip(['netns', 'add', hub]);
  await ip(['-n', hub, 'link', 'add', bridge, 'type', 'bridge']);
  await ip(['-n', hub, 'link', 'set', bridge, 'up']);

  type Member = ClusterServer & {
    hubLink: string;
    process: ServerProcess;
    relay: ChildProcess | undefined;
    listener: Server;
    sockets: Set<Socket>;
    cut: boolean;
  };
  const members: Member[] = [];
  const addressOf = (i: number) => `10.232.${octet}.${11 + i}`;
  for (let i = 0; i < size; i++) {
    const namespace = `qws${i + 1}-${id}`;
    const hubLink = `vh${i + 1}${id}`;
    const serverLink = `vs${i + 1}${id}`;
    await ip(['netns', 'add', namespace]);
    await ip(['link', 'add', hubLink, 'type', 'veth', 'peer', 'name', serverLink]);
    await ip(['link', 'set', hubLink, 'netns', hub]);
    await ip(['link', 'set', serverLink, 'netns', namespace]);
    await ip(['-n', hub, 'link', 'set', hubLink, 'master', bridge]);
    await ip(['-n', hub, 'link', 'set', hubLink, 'up']);
    await ip(['-n', namespace, 'address', 'add', `${addressOf(i)}/24`, 'dev', serverLink]);
    await ip(['-n', namespace, 'link', 'set', serverLink, 'up']);
    await ip(['-n', namespace, 'link', 'set', 'lo', 'up']);

    const name = `n${i + 1}`;
    const storeDir = path.join(dir, name, 'store');
    const configFile = path.join(dir, name, 'nats.conf');
    await run('mkdir', ['-p', path.join(dir, name)]);
    const routes = Array.from({ length: size }, (_, j) => j)
      .filter((j) => j !== i)
      .map((j) => `nats://${addressOf(j)}:6222`);
    await writeFile(
      configFile,
      [
        natsServerConfig({
          listen: `${addressOf(i)}:4222`,
          storeDir,
          operator: users.serverAuth(path.join(dir, name, 'accounts')),
          tls,
        }),
        `server_name: ${JSON.stringify(name)}`,
        'cluster {',
        `  name: ${JSON.stringify(`qw${id}`)}`,
        `  listen: ${JSON.stringify(`${addressOf(i)}:6222`)}`,
        `  routes: ${JSON.stringify(routes)}`,
        // Clients reach the servers through the relays only, never at their lab addresses.
        '  no_advertise: true',
        '  connect_retries: 120',
        '}',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    const port = await freePort();
    const url = `nats://127.0.0.1:${port}`;
    const socketPath = path.join(dir, `${name}.sock`);
    const member: Member = {
      name,
      namespace,
      address: addressOf(i),
      url,
      storeDir,
      running: false,
      hubLink,
      relay: undefined,
      sockets: new Set(),
      cut: false,
      listener: createServer((client) => {
        if (member.cut) {
          client.destroy();
          return;
        }
        const upstream = connectSocket(socketPath);
        member.sockets.add(client);
        member.sockets.add(upstream);
        const close = () => {
          client.destroy();
          upstream.destroy();
          member.sockets.delete(client);
          member.sockets.delete(upstream);
        };
        client.on('error', close).on('close', close);
        upstream.on('error', close).on('close', close);
        client.pipe(upstream).pipe(client);
      }),
      process: serverProcess(
        () => spawn('ip', ['netns', 'exec', namespace, binary, '-c', configFile], { stdio: 'ignore' }),
        async () => {
          const nc = await connect({
            servers: url,
            authenticator: credsSigner(() => admin.creds),
            reconnect: false,
            timeout: 1000,
            tls: { caFile: tls.caFile },
          });
          try {
            await jetstreamManager(nc).then((jsm) => jsm.getAccountInfo());
          } finally {
            await nc.close();
          }
        },
      ),
    };
    await new Promise<void>((resolve) => member.listener.listen(port, '127.0.0.1', resolve));
    member.relay = spawn(
      'ip',
      [
        'netns',
        'exec',
        namespace,
        'socat',
        `UNIX-LISTEN:${socketPath},fork,unlink-early,mode=600`,
        `TCP:${addressOf(i)}:4222`,
      ],
      { stdio: 'ignore' },
    );
    members.push(member);
  }

  // Whatever still runs in the lab's namespaces (a server the test left killed and restarted, a
  // relay) goes with them, also when the test process ends without stopping the cluster.
  const removeLab = () => {
    for (const namespace of [...members.map((m) => m.namespace), hub]) {
      try {
        const pids = execFileSync('ip', ['netns', 'pids', namespace], { encoding: 'utf8' })
          .split(/\s+/)
          .filter(Boolean);
        for (const pid of pids) process.kill(Number(pid), 'SIGKILL');
        execFileSync('ip', ['netns', 'delete', namespace], { stdio: 'ignore' });
      } catch {
        // Already gone.
      }
    }
  };
  process.once('exit', removeLab);

  const startMember = async (member: Member) => {
    await member.process.start();
    member.running = true;
  };
  // Together: JetStream answers only once a majority has elected its meta leader.
  await Promise.all(members.map(startMember));

  const servers = members.map((member) => member.url).join(',');
  const connectAs = async (creds: string) => {
    for (const member of members.filter((m) => m.running && !m.cut)) {
      try {
        return await connect({
          servers: member.url,
          authenticator: credsSigner(() => creds),
          reconnect: false,
          timeout: 1000,
          tls: { caFile: tls.caFile },
        });
      } catch {
        // The next server.
      }
    }
    throw new Error('no server of the cluster answers');
  };
  const env = (user: string): BusEnv => ({
    NATS_URL: servers,
    NATS_USER: user,
    NATS_CREDS: issuedTo(user).file,
    NATS_CA_FILE: tls.caFile,
  });
  const memberAt = (index: number) => {
    const member = members[index];
    if (!member) throw new Error(`no server ${index} in a cluster of ${size}`);
    return member;
  };

  return {
    url: servers,
    caFile: tls.caFile,
    identityDir: dir,
    admin,
    credentials: issuedTo,
    env,
    streamReplicas: options.streamReplicas ?? Math.min(3, size),
    outboxRetentionMs: options.outboxRetentionMs ?? 5 * 60_000,
    servers: members,
    async addNode(name) {
      await users.addNode(name);
      return env(nodeUser(name));
    },
    revoke: (user) => users.revoke(user, connectAs),
    connect(
      user,
      name = `test-${user}`,
      logger = createLogger({ service: name, level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    ) {
      return connectBus({ url: servers, name, namespace: '', logger, creds: issuedTo(user).creds, caFile: tls.caFile });
    },
    async kill(index) {
      const member = memberAt(index);
      member.running = false;
      await member.process.halt('SIGKILL');
    },
    async start(index) {
      await startMember(memberAt(index));
    },
    async cut(index) {
      const member = memberAt(index);
      member.cut = true;
      await ip(['-n', hub, 'link', 'set', member.hubLink, 'down']);
      for (const socket of member.sockets) socket.destroy();
      member.sockets.clear();
    },
    async heal(index) {
      const member = memberAt(index);
      await ip(['-n', hub, 'link', 'set', member.hubLink, 'up']);
      member.cut = false;
    },
    async messageBlocks(index, stream) {
      const member = memberAt(index);
      const accounts = path.join(member.storeDir, 'jetstream');
      const found: string[] = [];
      for (const account of await readdir(accounts).catch(() => [] as string[])) {
        const msgs = path.join(accounts, account, 'streams', stream, 'msgs');
        for (const file of await readdir(msgs).catch(() => [] as string[]))
          if (file.endsWith('.blk')) found.push(path.join(msgs, file));
      }
      return found.sort();
    },
    async stop() {
      for (const member of members) {
        member.cut = true;
        for (const socket of member.sockets) socket.destroy();
        await new Promise((resolve) => member.listener.close(resolve));
        member.relay?.kill('SIGTERM');
        member.running = false;
        await member.process.halt('SIGTERM');
      }
      removeLab();
      process.off('exit', removeLab);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
