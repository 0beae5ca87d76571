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
