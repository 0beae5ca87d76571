import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  parseWgDump,
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
 * Runs `wg` and `ip` for one interface, through an optional prefix such as
 * `ip netns exec qw-node`. Arguments are arrays: nothing goes through a shell.
 */
export class WgHost {
  private readonly prefix: string[];

  constructor(
    readonly iface: string,
    prefix: string,
  ) {
    this.prefix = prefix.trim() ? prefix.trim().split(/\s+/) : [];
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

  async dump(): Promise<WgDump> {
    return parseWgDump(await this.wg(wgShowDumpArgs(this.iface)));
  }

  /** Each peer's latest handshake (unix seconds, 0: never): a few bytes per peer, cheap every second. */
  async latestHandshakes(): Promise<Map<string, number>> {
    return parseLatestHandshakes(await this.wg(wgShowLatestHandshakesArgs(this.iface)));
  }

  /** One `wg set` per batch of peer changes: thousands of peers cost a handful of processes. */
  async setPeers(changes: readonly PeerChange[], batch = 2000): Promise<void> {
    for (let i = 0; i < changes.length; i += batch)
      await this.wg(wgSetPeersArgs(this.iface, changes.slice(i, i + batch)));
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
