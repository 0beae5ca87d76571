/**
 * `wg show <iface> dump`: one tab-separated line for the interface, then one per peer.
 * The interface private key and peer preshared keys are reduced to "is one set": a parsed dump is
 * passed around and reported, and secrets have no business riding along. A preshared key leaves as
 * its digest only, which is enough to tell whether the node carries the one it should.
 */
import { createHash } from 'node:crypto';
import { isWireGuardKey } from './keys.ts';

export type WgDumpInterface = {
  hasPrivateKey: boolean;
  publicKey: string | null;
  listenPort: number;
  /** null when `off`. */
  fwmark: number | null;
};

export type WgDumpPeer = {
  publicKey: string;
  hasPresharedKey: boolean;
  /** `presharedKeyDigest` of the peer's preshared key; null when it has none. */
  presharedKeyDigest: string | null;
  /** 'host:port' / '[ipv6]:port' as wg prints it; null before the peer was ever seen. */
  endpoint: string | null;
  allowedIps: string[];
  /** Unix seconds of the latest handshake; 0 = never. */
  latestHandshake: number;
  transferRx: number;
  transferTx: number;
  /** Seconds; null when `off`. */
  persistentKeepalive: number | null;
};

export type WgDump = { interface: WgDumpInterface; peers: WgDumpPeer[] };

const NONE = '(none)';
/** Old `wg` builds print an unset preshared key as 32 zero bytes rather than "(none)". */
const ZERO_KEY = `${'A'.repeat(43)}=`;
const UNSIGNED = /^\d+$/;

export function parseWgDump(output: string): WgDump {
  const lines = output.split('\n').filter((line) => line.trim() !== '');
  const [interfaceLine, ...peerLines] = lines;
  if (interfaceLine === undefined) throw new Error('wg dump is empty');
  return {
    interface: parseInterfaceLine(interfaceLine),
    peers: peerLines.map((line, index) => parsePeerLine(line, index + 2)),
  };
}

function parseInterfaceLine(line: string): WgDumpInterface {
  const fields = splitFields(line, 4, 1);
  const [privateKey, publicKey, listenPort, fwmark] = fields as [string, string, string, string];
  return {
    hasPrivateKey: optionalKey(privateKey, 'private key', 1) !== null,
    publicKey: optionalKey(publicKey, 'public key', 1),
    listenPort: unsigned(listenPort, 'listen port', 1),
    fwmark: fwmark === 'off' ? null : fwmarkValue(fwmark),
  };
}

function parsePeerLine(line: string, lineNumber: number): WgDumpPeer {
  const fields = splitFields(line, 8, lineNumber);
  const [publicKey, presharedKey, endpoint, allowedIps, handshake, rx, tx, keepalive] = fields as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (!isWireGuardKey(publicKey)) throw new Error(`wg dump line ${lineNumber}: peer public key is not a WireGuard key`);
  const psk = optionalKey(presharedKey, 'preshared key', lineNumber);
  return {
    publicKey,
    hasPresharedKey: psk !== null,
    presharedKeyDigest: presharedKeyDigest(psk),
    endpoint: endpoint === NONE ? null : endpoint,
    allowedIps: allowedIps === NONE ? [] : allowedIps.split(','),
    latestHandshake: unsigned(handshake, 'latest handshake', lineNumber),
    transferRx: unsigned(rx, 'transfer rx', lineNumber),
    transferTx: unsigned(tx, 'transfer tx', lineNumber),
    persistentKeepalive: keepalive === 'off' ? null : unsigned(keepalive, 'persistent keepalive', lineNumber),
  };
}

/**
 * 16 hex characters of SHA-256 over a preshared key (null for none): compares a node's key with the
 * desired one without keeping the key. Not a secret's hiding place: the key itself has 256 random
 * bits, so the digest tells nothing usable about it.
 */
export function presharedKeyDigest(presharedKey: string | null | undefined): string | null {
  if (presharedKey == null) return null;
  return createHash('sha256').update(presharedKey).digest('hex').slice(0, 16);
}

function splitFields(line: string, count: number, lineNumber: number): string[] {
  const fields = line.replace(/\r$/, '').split('\t');
  if (fields.length !== count) {
    const hint = fields.length === count + 1 ? ' (output of `wg show all dump`? pass one interface)' : '';
    throw new Error(`wg dump line ${lineNumber}: expected ${count} tab-separated fields, got ${fields.length}${hint}`);
  }
  return fields;
}

function optionalKey(value: string, what: string, lineNumber: number): string | null {
  if (value === NONE || value === ZERO_KEY) return null;
  if (!isWireGuardKey(value)) throw new Error(`wg dump line ${lineNumber}: ${what} is neither a key nor ${NONE}`);
  return value;
}

function unsigned(value: string, what: string, lineNumber: number): number {
  const number = Number(value);
  if (!UNSIGNED.test(value) || !Number.isSafeInteger(number)) {
    throw new Error(`wg dump line ${lineNumber}: ${what} is not a non-negative integer: ${JSON.stringify(value)}`);
  }
  return number;
}

/** wg prints the fwmark as hex ("0xca6c"); accept decimal too. */
function fwmarkValue(value: string): number {
  const number = /^0x[0-9a-f]+$/i.test(value)
    ? parseInt(value.slice(2), 16)
    : UNSIGNED.test(value)
      ? Number(value)
      : NaN;
  if (!Number.isSafeInteger(number) || number > 0xffff_ffff)
    throw new Error(`wg dump line 1: fwmark is not "off" or a number: ${JSON.stringify(value)}`);
  return number;
}
