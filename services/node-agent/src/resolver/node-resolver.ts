import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import type { ResolverHealth } from '@qw/contracts';
import { readBlocklists } from './blocklists.ts';
import { queryResolver } from './probe.ts';
import { blocklistZones, unboundConfig, type ResolverListen } from './unbound-config.ts';

export type NodeResolverOptions = {
  /** The unbound binary, or 'off' (the node runs no resolver; its devices' DNS goes unanswered). */
  binary: string;
  /** Where its config and blocklist zones are written (nothing else is ever written there). */
  directory: string;
  blocklistDir: string;
  upstream: readonly string[];
  /** The agent's command prefix (e.g. `ip netns exec qw-node`): unbound and the probe run through it. */
  prefix: readonly string[];
  port?: number;
  username?: string;
  trustAnchorFile?: string;
};

const debianTrustAnchor = '/usr/share/dns/root.key';

/**
 * The node's own resolver (unbound), run and watched by the agent: started once the node knows its
 * tunnel addresses, started again when it exits (1 s, doubling to 30 s while it keeps failing;
 * back to 1 s once it has run a minute), asked a probe query (`localhost.`, answered by unbound
 * itself) whenever the agent reports, and stopped with the agent. Unbound's own error lines are
 * logged only until it first answers (start-up problems such as a port in use); after that they
 * are counted, not written, since a resolver's errors can name what was looked up.
 */
export class NodeResolver {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private stopped = false;
  private listen: ResolverListen[] = [];
  private restartTimer: NodeJS.Timeout | undefined;
  private backoffMs = 1000;
  private answeredOnce = false;
  private startedAt = 0;
  private lastProbe: { answering: boolean; at: Date } | null = null;
  /** Times unbound was started again after it exited on its own. */
  restarts = 0;
  /** Error lines unbound wrote after it first answered (not logged). */
  quietErrors = 0;

  constructor(
    private readonly options: NodeResolverOptions,
    private readonly logger: Logger,
  ) {}

  get enabled(): boolean {
    return this.options.binary !== 'off';
  }

  /** The running unbound's process id (a test kills it to see it come back). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  get configFile(): string {
    return path.join(this.options.directory, 'unbound.conf');
  }

  /** The running unbound's process id, so an agent that died without stopping it ends it next time. */
  private get pidFile(): string {
    return path.join(this.options.directory, 'unbound.pid');
  }

  /** Writes the config for these addresses and starts unbound (again, if it ran with others). */
  async start(listen: ResolverListen[]): Promise<void> {
    if (!this.enabled) return;
    this.stopped = false;
    this.listen = listen;
    await this.writeConfig();
    await this.stopChild();
    await this.endLeftover();
    this.spawnUnbound();
  }

  /**
   * An unbound that a previous agent started with this config and left running (the agent was
   * killed) still holds the port, and `so-reuseport: no` makes the new one fail to bind: end it
   * first (TERM, then KILL after 5 s). Only the process the pid file names, and only while its
   * command line names this config file.
   */
  private async endLeftover(): Promise<void> {
    const pid = Number((await readFile(this.pidFile, 'utf8').catch(() => '')).trim());
    if (!Number.isInteger(pid) || pid <= 1) return;
    const runsOurConfig = async () =>
      (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0').includes(this.configFile);
    if (!(await runsOurConfig())) return;
    this.logger.warn({ count: 1 }, 'resolver (unbound) left by a previous agent; ending it');
    process.kill(pid, 'SIGTERM');
    for (let waited = 0; (await runsOurConfig()) && waited < 5000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (await runsOurConfig()) process.kill(pid, 'SIGKILL');
  }

  private async writeConfig(): Promise<void> {
    const { directory } = this.options;
    await mkdir(directory, { recursive: true, mode: 0o755 });
    const blocklistFile = path.join(directory, 'blocklists.conf');
    await writeFile(blocklistFile, blocklistZones(await readBlocklists(this.options.blocklistDir)), { mode: 0o644 });
    const trustAnchor = this.options.trustAnchorFile ?? debianTrustAnchor;
    await writeFile(
      this.configFile,
      unboundConfig({
        directory,
        listen: this.listen,
        port: this.options.port ?? 53,
        upstream: this.options.upstream,
        username: this.options.username ?? (process.getuid?.() === 0 ? 'unbound' : ''),
        trustAnchorFile: existsSync(trustAnchor) ? trustAnchor : null,
        blocklistFile,
      }),
      { mode: 0o644 },
    );
  }

  private spawnUnbound(): void {
    const [file, ...args] = [...this.options.prefix, this.options.binary, '-d', '-p', '-c', this.configFile];
    const child = spawn(file!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    if (child.pid) writeFileSync(this.pidFile, `${child.pid}\n`, { mode: 0o644 });
    this.startedAt = Date.now();
    this.answeredOnce = false;
    createInterface({ input: child.stderr! }).on('line', (line) => {
      if (this.answeredOnce) this.quietErrors += 1;
      else this.logger.warn({ unbound: line.slice(0, 300) }, 'resolver (unbound) says');
    });
    this.exited = new Promise((resolve) => {
      child.on('error', (error) => {
        this.logger.error({ err: error }, 'resolver (unbound) could not be started');
      });
      child.on('close', (code, signal) => {
        if (this.child === child) this.child = null;
        resolve();
        if (this.stopped) return;
        this.logger.warn({ code, signal }, 'resolver (unbound) exited; starting it again');
        if (Date.now() - this.startedAt > 60_000) this.backoffMs = 1000;
        const delay = this.backoffMs;
        this.backoffMs = Math.min(this.backoffMs * 2, 30_000);
        this.restartTimer = setTimeout(() => {
          if (this.stopped || this.child) return;
          this.restarts += 1;
          this.spawnUnbound();
        }, delay);
      });
    });
  }

  /** Asks the resolver for `localhost.` on the node's own tunnel address: does it answer now? */
  async probe(): Promise<boolean> {
    const target = this.listen[0];
    if (!this.child || !target) return false;
    const answer = await queryResolver(target.address, 'localhost', {
      port: this.options.port ?? 53,
      prefix: this.options.prefix,
      timeoutMs: 1000,
    });
    const answering = answer !== null && answer.rcode === 0 && answer.addresses.includes('127.0.0.1');
    if (answering) this.answeredOnce = true;
    this.lastProbe = { answering, at: new Date() };
    return answering;
  }

  /** Probes, then says how the resolver is, as the node's report carries it. */
  async health(): Promise<ResolverHealth> {
    if (!this.enabled) return { state: 'off', restarts: 0 };
    const answering = await this.probe();
    const state = answering ? 'answering' : !this.child ? 'down' : this.answeredOnce ? 'not_answering' : 'starting';
    return { state, restarts: this.restarts };
  }

  /** The last probe's result without asking again (metrics). */
  get lastAnswered(): boolean | null {
    return this.lastProbe?.answering ?? null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    await this.stopChild();
    // Only an agent that runs a resolver owns the pid file: one with it off (NODE_RESOLVER=off)
    // leaves alone what another agent sharing the folder wrote there.
    if (this.enabled) await rm(this.pidFile, { force: true });
  }

  /** Ends unbound (TERM, then KILL after 5 s) and waits until it is gone, so its port is free. */
  private async stopChild(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const stopping = this.stopped;
    this.stopped = true;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(killer);
    this.stopped = stopping;
  }
}
