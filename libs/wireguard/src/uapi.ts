/**
 * WireGuard's cross-platform configuration protocol (UAPI), which wireguard-go serves on a unix
 * socket (`/var/run/wireguard/<iface>.sock`) and `wg` itself speaks to it: `set=1` with key=value
 * lines, or `get=1`, each ended by a blank line and answered with `errno=<n>` and a blank line.
 * Keys travel as hex. The node agent writes its peer changes here instead of spawning `wg` for
 * each: no process, and a preshared key goes straight to the interface, never into a file.
 *
 * The request builders and the answer parser are pure; `uapiSet`/`uapiGet` are the socket I/O.
 */
import { connect, isIP } from 'node:net';
import { isWireGuardKey, publicKeyFromPrivate } from './keys.ts';
import { presharedKeyDigest, type WgDump, type WgDumpInterface, type WgDumpPeer } from './wg-dump.ts';

/** Where wireguard-go (and other userspace implementations) listen for an interface. */
export const uapiSocketDirectory = '/var/run/wireguard';

export function uapiSocketPath(iface: string, directory = uapiSocketDirectory): string {
  if (!/^[A-Za-z0-9_=+.-]{1,15}$/.test(iface) || iface.startsWith('-') || iface.includes('..'))
    throw new Error(`not a WireGuard interface name: ${JSON.stringify(iface)}`);
  return `${directory}/${iface}.sock`;
}

/**
 * One peer change. `presharedKey`: the key itself (base64), null to take the peer's away, absent
 * to leave it as it is. `allowedIps` replaces the peer's set (absent: none).
 */
export type UapiPeerChange = {
  publicKey: string;
  allowedIps?: readonly string[];
  presharedKey?: string | null;
  remove?: boolean;
};

const ZERO_HEX = '0'.repeat(64);

/** base64 key → the 64 hex characters UAPI carries; the error never echoes the key. */
export function keyToHex(key: string, role = 'key'): string {
  if (!isWireGuardKey(key)) throw new Error(`${role} is not a WireGuard key (base64 of 32 bytes)`);
  return Buffer.from(key, 'base64').toString('hex');
}

/**
 * An allowed IP as UAPI takes it: address/prefix (a bare address is a host route), checked with
 * Node's own address parser (50,000 peers in a few milliseconds); wireguard-go masks host bits.
 */
export function uapiAllowedIp(entry: string): string {
  const text = entry.trim();
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const family = address.includes('%') ? 0 : isIP(address);
  const bits = family === 4 ? 32 : 128;
  const prefix = slash < 0 ? String(bits) : text.slice(slash + 1);
  if (family === 0 || !/^\d{1,3}$/.test(prefix) || Number(prefix) > bits)
    throw new Error(`allowed IP ${JSON.stringify(entry)} is not an address/prefix`);
  return `${address}/${Number(prefix)}`;
}

/** 64 hex characters → base64 key (null for none: all zero, as UAPI writes an unset key). */
export function hexToKey(hex: string, role = 'key'): string | null {
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`uapi: ${role} is not 64 hex characters`);
  if (hex === ZERO_HEX) return null;
  return Buffer.from(hex, 'hex').toString('base64');
}

/** The lines of one peer change (no `set=1`, no blank line): checked like `wg set`'s arguments. */
export function uapiPeerLines(change: UapiPeerChange): string {
  if (!isWireGuardKey(change.publicKey)) throw new Error('peer public key is not a WireGuard key');
  let lines = `public_key=${keyToHex(change.publicKey, 'peer public key')}\n`;
  if (change.remove) return `${lines}remove=true\n`;
  if (change.presharedKey !== undefined)
    lines += `preshared_key=${change.presharedKey === null ? ZERO_HEX : keyToHex(change.presharedKey, 'preshared key')}\n`;
  lines += 'replace_allowed_ips=true\n';
  for (const entry of change.allowedIps ?? []) lines += `allowed_ip=${uapiAllowedIp(entry)}\n`;
  return lines;
}

/**
 * A whole `set` request in pieces of `peersPerPiece` peers: the first starts with `set=1`, the last
 * ends with the blank line. Every change is checked before the first piece is made, so a bad one
 * sends nothing at all.
 */
export function uapiSetRequest(changes: readonly UapiPeerChange[], peersPerPiece = 1000): string[] {
  const lines = changes.map(uapiPeerLines);
  const pieces: string[] = [];
  for (let i = 0; i < lines.length || i === 0; i += peersPerPiece)
    pieces.push((i === 0 ? 'set=1\n' : '') + lines.slice(i, i + peersPerPiece).join(''));
  pieces[pieces.length - 1] += '\n';
  return pieces;
}

export class UapiError extends Error {
  constructor(
    message: string,
    readonly errno: number | null = null,
  ) {
    super(message);
    this.name = 'UapiError';
  }
}

/**
 * Reads a `get=1` answer as it streams in (`push` each chunk, then `end`): the interface and one
 * peer at a time to `onPeer`, so 50,000 peers are never one string. Secrets never leave it: the
 * interface's private key becomes its public half and `hasPrivateKey`, a preshared key its digest.
 * (The handshake watch reads less, and faster: `parseUapiHandshakes`.)
 */
export class UapiGetParser {
  private rest = '';
  private peer: WgDumpPeer | undefined;
  private errno: number | undefined;
  readonly interface: WgDumpInterface = { hasPrivateKey: false, publicKey: null, listenPort: 0, fwmark: null };

  constructor(private readonly onPeer: (peer: WgDumpPeer) => void) {}

  /** Whether the answer's `errno` line has arrived (the answer is complete). */
  get done(): boolean {
    return this.errno !== undefined;
  }

  push(chunk: string): void {
    const text = this.rest + chunk;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      this.line(text.slice(start, nl));
      start = nl + 1;
    }
    this.rest = text.slice(start);
  }

  /** Ends the answer: throws when it was cut short or said an error. */
  end(): void {
    const cut = this.rest !== '';
    this.rest = '';
    this.flush();
    refuseGetEnd(cut ? undefined : this.errno);
  }

  private flush(): void {
    if (this.peer) this.onPeer(this.peer);
    this.peer = undefined;
  }

  private line(line: string): void {
    if (line === '') return;
    const eq = line.indexOf('=');
    if (eq <= 0) throw new UapiError('uapi: a line of the answer is not key=value');
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1);
    if (key === 'public_key') {
      this.flush();
      const publicKey = hexToKey(value, 'peer public key');
      if (publicKey === null) throw new UapiError('uapi: a peer has an all-zero public key');
      this.peer = {
        publicKey,
        hasPresharedKey: false,
        presharedKeyDigest: null,
        endpoint: null,
        allowedIps: [],
        latestHandshake: 0,
        transferRx: 0,
        transferTx: 0,
        persistentKeepalive: null,
      };
      return;
    }
    if (key === 'errno') {
      this.flush();
      this.errno = unsigned(value, key);
      return;
    }
    const peer = this.peer;
    if (!peer) {
      if (key === 'private_key') {
        const privateKey = hexToKey(value, 'private key');
        this.interface.hasPrivateKey = privateKey !== null;
        this.interface.publicKey = privateKey === null ? null : publicKeyFromPrivate(privateKey);
      } else if (key === 'listen_port') this.interface.listenPort = unsigned(value, key);
      else if (key === 'fwmark') this.interface.fwmark = unsigned(value, key) || null;
      return;
    }
    if (key === 'last_handshake_time_sec') peer.latestHandshake = unsigned(value, key);
    else if (key === 'allowed_ip') peer.allowedIps.push(value);
    else if (key === 'preshared_key') {
      const psk = hexToKey(value, 'preshared key');
      peer.hasPresharedKey = psk !== null;
      peer.presharedKeyDigest = presharedKeyDigest(psk);
    } else if (key === 'endpoint') peer.endpoint = value || null;
    else if (key === 'rx_bytes') peer.transferRx = unsigned(value, key);
    else if (key === 'tx_bytes') peer.transferTx = unsigned(value, key);
    else if (key === 'persistent_keepalive_interval') peer.persistentKeepalive = unsigned(value, key) || null;
    // protocol_version, last_handshake_time_nsec and anything newer: not needed.
  }
}

function unsigned(value: string, what: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number))
    throw new UapiError(`uapi: ${what} is not a non-negative integer`);
  return number;
}

/**
 * One exchange on the socket: writes the pieces (waiting for the socket to drain between them),
 * hands each chunk of the answer to `onData` until it says it is complete, and closes.
 * `timeoutMs` bounds the whole exchange.
 */
function exchange(
  socketPath: string,
  pieces: readonly string[],
  onData: (chunk: Buffer) => boolean,
  timeoutMs: number,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    // Bytes, not text: the answer is ASCII, and the handshake watch reads only a few lines of each
    // peer out of 3 MB every second at 10,000 peers (`parseUapiHandshakes`). What is read becomes
    // text as latin1, byte for byte, so a byte that is not ASCII is never taken for a hex digit.
    const socket = connect(socketPath);
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve();
    };
    const timer = setTimeout(() => finish(new UapiError(`uapi: no complete answer in ${timeoutMs} ms`)), timeoutMs);
    socket.on('error', (error) => finish(error));
    socket.on('data', (chunk: Buffer) => {
      try {
        if (onData(chunk)) finish();
      } catch (error) {
        finish(error as Error);
      }
    });
    socket.on('end', () => finish(new UapiError('uapi: the interface closed the socket before answering')));
    socket.once('connect', async () => {
      for (const piece of pieces) {
        if (settled) return;
        if (!socket.write(piece)) await new Promise((drained) => socket.once('drain', drained));
      }
    });
  });
}

/**
 * Applies the changes in one `set` (streamed in pieces): all of them, in order, or an error. An
 * answer other than errno=0 throws `UapiError` (the changes before the one refused may be applied,
 * as with `wg set`).
 */
export async function uapiSet(
  socketPath: string,
  changes: readonly UapiPeerChange[],
  timeoutMs = 120_000,
): Promise<void> {
  const pieces = uapiSetRequest(changes);
  let answer = '';
  await exchange(
    socketPath,
    pieces,
    (chunk) => {
      answer += chunk.toString('latin1');
      return answer.endsWith('\n\n');
    },
    timeoutMs,
  );
  const match = /^errno=(-?\d+)\n\n$/.exec(answer);
  if (!match) throw new UapiError('uapi: set answered something other than errno');
  const errno = Number(match[1]);
  if (errno !== 0) throw new UapiError(`uapi: set answered errno=${errno}`, errno);
}

/** `get=1`, parsed as it streams: the interface and its peers, secrets reduced as `wg show dump` parsing does. */
export async function uapiGet(socketPath: string, timeoutMs = 60_000): Promise<WgDump> {
  const peers: WgDumpPeer[] = [];
  const parser = new UapiGetParser((peer) => peers.push(peer));
  await readGet(socketPath, parser, timeoutMs);
  return { interface: parser.interface, peers };
}

/** Each peer's latest handshake (unix seconds, 0: never), read with `get=1` without keeping the rest. */
export async function uapiLatestHandshakes(socketPath: string, timeoutMs = 60_000): Promise<Map<string, number>> {
  return await parseUapiHandshakes(Buffer.concat(await gatherGet(socketPath, timeoutMs)));
}

const peerKeyLine = Buffer.from('public_key=');
const handshakeLine = Buffer.from('\nlast_handshake_time_sec=');
/** About 2 ms of `parseUapiHandshakes` between turns of the event loop. */
const handshakePeersPerSlice = 1000;

/**
 * Each peer's public key and latest handshake (unix seconds, 0: never) from a whole `get=1`
 * answer: the handshake watch's reading, every second. Only those two lines of each peer are
 * read, found by searching the bytes (`Buffer.indexOf`) rather than by decoding 3 MB of text (at
 * 10,000 peers) and splitting it into 90,000 lines; only each key and number becomes a string
 * (16–23 ms at 10,000 peers here, the whole parse 42–64 ms). A turn of the event loop every
 * `handshakePeersPerSlice` peers, as `readGet` takes between its slices: a peer change answered
 * meanwhile is seen at once. Checked as `UapiGetParser` checks them: an answer cut short or saying
 * an error, a key that is not 64 hex characters or is all zero, a handshake that is not a whole
 * number.
 */
export async function parseUapiHandshakes(answer: Buffer): Promise<Map<string, number>> {
  const ended = answerEnded.exec(answer.toString('latin1', Math.max(0, answer.length - 32)));
  refuseGetEnd(ended ? Number(ended[1]) : undefined);
  const handshakes = new Map<string, number>();
  let handshake = answer.indexOf(handshakeLine);
  // Where the next peer's `public_key` line starts, from `from` on (-1: no more peers).
  const nextPeer = (from: number) => {
    const found = answer.indexOf(peerKeyLine, from);
    if (found <= 0 || answer[found - 1] === 10) return found;
    return nextPeer(found + 1);
  };
  for (let at = nextPeer(0), peers = 1; at >= 0; peers++) {
    if (peers % handshakePeersPerSlice === 0) await new Promise((resolve) => setImmediate(resolve));
    const keyStart = at + peerKeyLine.length;
    const publicKey = hexToKey(answer.toString('latin1', keyStart, keyStart + 64), 'peer public key');
    if (publicKey === null || answer[keyStart + 64] !== 10)
      throw new UapiError('uapi: a peer has an all-zero or malformed public key');
    const next = nextPeer(keyStart);
    while (handshake >= 0 && handshake < keyStart) handshake = answer.indexOf(handshakeLine, handshake + 1);
    let seconds = 0;
    if (handshake >= 0 && (next < 0 || handshake < next)) {
      const valueStart = handshake + handshakeLine.length;
      seconds = unsigned(
        answer.toString('latin1', valueStart, answer.indexOf(10, valueStart)),
        'last_handshake_time_sec',
      );
    }
    handshakes.set(publicKey, seconds);
    at = next;
  }
  return handshakes;
}

/**
 * wireguard-go answers a `get` under its configuration lock, which every `set` waits for, and
 * holds it until the whole answer has been read from the socket. So the answer is only gathered
 * while it streams (its end is its `errno` line and the blank line after it) and parsed once the
 * socket is closed: at 10,000 peers the lock is then held for wireguard-go's own writing (about
 * 25 ms here), not also for the parsing (another 25-30 ms), and a peer added meanwhile waits that
 * much less.
 */
async function gatherGet(socketPath: string, timeoutMs: number): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  let tail = '';
  await exchange(
    socketPath,
    ['get=1\n\n'],
    (chunk) => {
      chunks.push(chunk);
      tail = (tail + chunk.toString('latin1', Math.max(0, chunk.length - 32))).slice(-32);
      return answerEnded.test(tail);
    },
    timeoutMs,
  );
  return chunks;
}

/** `gatherGet`, then the answer through `parser`. */
async function readGet(socketPath: string, parser: UapiGetParser, timeoutMs: number): Promise<void> {
  const chunks = await gatherGet(socketPath, timeoutMs);
  // Parsed in slices with a turn of the event loop between them: a set answered meanwhile (a peer
  // change while the handshake watch reads) is seen at once, not after every peer has been parsed.
  let sinceYield = 0;
  for (const chunk of chunks) {
    parser.push(chunk.toString('latin1'));
    sinceYield += chunk.length;
    if (sinceYield >= parseSliceChars) {
      sinceYield = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  parser.end();
}

/** About 250 peers of a `get` answer: a millisecond or two of parsing between turns of the event loop. */
const parseSliceChars = 64 * 1024;

/** The end of a `get` answer: its `errno` line (the first line, when the get failed) and a blank line. */
const answerEnded = /(?:^|\n)errno=(\d+)\n\n$/;

/** Throws when a `get` answer did not end well: cut short before its `errno` line (undefined), or an error. */
function refuseGetEnd(errno: number | undefined): void {
  if (errno === undefined) throw new UapiError('uapi: the answer ended before its errno line');
  if (errno !== 0) throw new UapiError(`uapi: get answered errno=${errno}`, errno);
}
