import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  parseWgDump,
  uapiGet,
  uapiLatestHandshakes,
  uapiSet,
  uapiSocketDirectory,
  uapiSocketPath,
  wgSetPeersArgs,
  wgShowDumpArgs,
  wgShowLatestHandshakesArgs,
  type PeerChange,
  type WgDump,
} from '@qw/wireguard';
import { parseLatestHandshakes } from './handshake-watch.ts';
import { parsePingRtt } from './latency.ts';

const run = promisify(execFile);

/**
 * How the agent talks to the interface: `uapi` writes and reads wireguard-go's socket
 * (`/var/run/wireguard/<iface>.sock`) directly, `wg` spawns `wg` (kernel WireGuard has no socket),
 * `auto` takes the socket whenever it is there.
 */
export type WgControl = 'auto' | 'uapi' | 'wg';

/**
 * Drives one interface: peers and readings over wireguard-go's UAPI socket when there is one (no
 * process per change, preshared keys never in a file), else with `wg`; `ip`, `ping` and the
 * interface's own key always with their commands, through an optional prefix such as
 * `ip netns exec qw-node`. Arguments are arrays: nothing goes through a shell. The socket is a
 * file on this host's filesystem, so it is reached from outside the interface's namespace.
 */
export class WgHost {
  private readonly prefix: string[];
  private readonly socketPath: string;

  constructor(
    readonly iface: string,
    prefix: string,
    readonly control: WgControl = 'auto',
    socketDirectory = uapiSocketDirectory,
  ) {
    this.prefix = prefix.trim() ? prefix.trim().split(/\s+/) : [];
    this.socketPath = uapiSocketPath(iface, socketDirectory);
  }

  /** Which path the next peer change or reading takes: the socket exists (checked each time, a few µs), or `wg`. */
  async path(): Promise<'uapi' | 'wg'> {
    if (this.control !== 'auto') return this.control;
    try {
      return (await stat(this.socketPath)).isSocket() ? 'uapi' : 'wg';
    } catch {
      return 'wg';
    }
  }

  private async exec(command: string, args: string[]): Promise<string> {
    const [file, ...rest] = [...this.prefix, command, ...args];
    const { stdout } = await run(file!, rest, { maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  }

  wg(args: string[]): Promise<string> {
    return this.exec('wg', args);
  }

  ip(args: string[]): Promise<string> {
    return this.exec('ip', args);
  }

  /** One echo to a tunnel address, waiting at most a second: the round trip in ms, or null. */
  async ping(address: string): Promise<number | null> {
    try {
      return parsePingRtt(await this.exec('ping', ['-n', '-q', '-c', '1', '-W', '1', address]));
    } catch {
      return null;
    }
  }

  /** Bytes received and sent by the interface since it came up (`ip -s`), or null when `ip` cannot tell. */
  async byteCounters(): Promise<{ rx: number; tx: number } | null> {
    return parseLinkCounters(await this.ip(['-j', '-s', 'link', 'show', 'dev', this.iface]));
  }

  /** The interface and its peers: `get=1` parsed as it streams, else `wg show dump`; secrets reduced alike. */
  async dump(): Promise<WgDump> {
    if ((await this.path()) === 'uapi') return uapiGet(this.socketPath);
    return parseWgDump(await this.wg(wgShowDumpArgs(this.iface)));
  }

  /** Each peer's latest handshake (unix seconds, 0: never): cheap every second. */
  async latestHandshakes(): Promise<Map<string, number>> {
    if ((await this.path()) === 'uapi') return uapiLatestHandshakes(this.socketPath);
    return parseLatestHandshakes(await this.wg(wgShowLatestHandshakesArgs(this.iface)));
  }

  /**
   * Applies peer changes in order. Over the socket: one `set` for all of them, streamed, each
   * preshared key written into the interface itself (never to disk). With `wg`:
   * one `wg set` per batch of peer changes: thousands of peers cost a handful of processes.
   * `wg` reads a preshared key only from a file: each is written to a directory only root reads
   * (mode 0700, files 0600) that is removed as soon as `wg` has read them, whatever happens.
   * A null key takes the peer's away (/dev/null); an absent one leaves it as it is.
   */
  async setPeers(changes: readonly AgentPeerChange[], batch = 2000): Promise<void> {
    if ((await this.path()) === 'uapi') return uapiSet(this.socketPath, changes);
    for (let i = 0; i < changes.length; i += batch) {
      const slice = changes.slice(i, i + batch);
      if (!slice.some((change) => typeof change.presharedKey === 'string')) {
        await this.wg(wgSetPeersArgs(this.iface, slice.map(withoutKey)));
        continue;
      }
      const dir = await mkdtemp(path.join(tmpdir(), 'qw-psk-'));
      try {
        const withFiles: PeerChange[] = [];
        for (const [index, change] of slice.entries()) {
          const file = path.join(dir, String(index));
          if (typeof change.presharedKey === 'string')
            await writeFile(file, `${change.presharedKey}\n`, { mode: 0o600 });
          withFiles.push({
            ...withoutKey(change),
            ...(change.presharedKey === undefined || change.remove
              ? {}
              : { presharedKeyFile: change.presharedKey === null ? '/dev/null' : file }),
          });
        }
        await this.wg(wgSetPeersArgs(this.iface, withFiles));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  }
}

/** The byte counters in `ip -j -s link show dev X`'s answer (stats64), or null when absent. */
export function parseLinkCounters(json: string): { rx: number; tx: number } | null {
  try {
    const [link] = JSON.parse(json) as Array<{ stats64?: { rx?: { bytes?: unknown }; tx?: { bytes?: unknown } } }>;
    const rx = link?.stats64?.rx?.bytes;
    const tx = link?.stats64?.tx?.bytes;
    return typeof rx === 'number' && typeof tx === 'number' && rx >= 0 && tx >= 0 ? { rx, tx } : null;
  } catch {
    return null;
  }
}

/** A change as the agent has it: the preshared key itself (never logged), which setPeers puts in a file. */
export type AgentPeerChange = Omit<PeerChange, 'presharedKeyFile'> & { presharedKey?: string | null };

function withoutKey({ presharedKey: _key, ...change }: AgentPeerChange): PeerChange {
  if (change.remove) return { publicKey: change.publicKey, remove: true };
  return change;
}
