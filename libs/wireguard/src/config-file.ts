/** The wg-quick client config a device downloads, scans or receives by mail, and its file name. */
import { parseCidr } from './ip-address.ts';
import { isWireGuardKey } from './keys.ts';
import { killSwitchLines } from './kill-switch.ts';

export type ClientConfigInput = {
  deviceName: string;
  privateKey: string;
  /** The device's own addresses with prefix length, e.g. ['10.64.0.2/32', 'fd7a:5157:7769::2/128']. */
  addresses: readonly string[];
  /** Resolver addresses (wg-quick also takes search domains here); empty → no DNS line. */
  dns: readonly string[];
  serverPublicKey: string;
  /** The device's preshared key (`wg genpsk`); absent or null leaves the line out. */
  presharedKey?: string | null;
  /** Adds wg-quick's kill-switch hooks (kill-switch.ts): nothing leaves outside the tunnel. */
  killSwitch?: boolean;
  /** 'host:port' or '[ipv6]:port'. */
  endpoint: string;
  allowedIps?: readonly string[];
  /** Seconds; 0 turns it off and leaves the line out. */
  persistentKeepalive?: number;
};

/** What `parseClientConfig` reads back; a missing Endpoint or PersistentKeepalive is null. */
export type ClientConfig = {
  deviceName: string | null;
  privateKey: string;
  addresses: string[];
  dns: string[];
  serverPublicKey: string;
  presharedKey: string | null;
  /** The wg-quick hooks as written, in order (the kill switch is two of each). */
  postUp: string[];
  preDown: string[];
  endpoint: string | null;
  allowedIps: string[];
  persistentKeepalive: number | null;
};

export const DEFAULT_ALLOWED_IPS: readonly string[] = ['0.0.0.0/0', '::/0'];
export const DEFAULT_PERSISTENT_KEEPALIVE = 25;
/**
 * Linux wg-quick (and the desktop clients that name the tunnel after the file) take the interface
 * name from the file name and refuse anything that is not 1–15 of [a-zA-Z0-9_=+.-] (IFNAMSIZ).
 * So the name before ".conf" is at most 15 characters, and the file works as downloaded everywhere.
 */
export const CONFIG_FILE_STEM_MAX_LENGTH = 15;
export const FALLBACK_CONFIG_FILE_NAME = 'quietwire.conf';

/** Windows refuses these as file names even with an extension ("con.conf"). */
const WINDOWS_RESERVED_NAME = /^(con|prn|aux|nul|com\d|lpt\d)$/;
const HEADER_PREFIX = '# Quietwire — ';
const PRIVATE_KEY_WARNING = '# This file contains the private key of this device. Do not share it.';
const ENDPOINT = /^(?:\[[0-9A-Fa-f:.]+(?:%[\w.-]+)?\]|[A-Za-z0-9.-]+):(\d{1,5})$/;
const LIST_ITEM = /^[^\s,#=[\]]+$/;
/** Interface keys only wg-quick understands; `wg setconf` rejects them (this is `wg-quick strip`). */
const WG_QUICK_ONLY_KEYS = new Set([
  'address',
  'dns',
  'mtu',
  'table',
  'preup',
  'postup',
  'predown',
  'postdown',
  'saveconfig',
]);

export function renderClientConfig(input: ClientConfigInput): string {
  const allowedIps = input.allowedIps ?? DEFAULT_ALLOWED_IPS;
  const keepalive = input.persistentKeepalive ?? DEFAULT_PERSISTENT_KEEPALIVE;
  if (!isWireGuardKey(input.privateKey)) throw new Error('client config: privateKey is not a WireGuard key');
  if (!isWireGuardKey(input.serverPublicKey)) throw new Error('client config: serverPublicKey is not a WireGuard key');
  if (input.presharedKey != null && !isWireGuardKey(input.presharedKey))
    throw new Error('client config: presharedKey is not a WireGuard key');
  requireCidrs('addresses', input.addresses);
  requireCidrs('allowedIps', allowedIps);
  for (const server of input.dns) {
    if (!LIST_ITEM.test(server))
      throw new Error(`client config: DNS entry ${JSON.stringify(server)} is not an address or domain`);
  }
  if (!isEndpoint(input.endpoint))
    throw new Error(`client config: endpoint ${JSON.stringify(input.endpoint)} is not host:port`);
  if (!Number.isInteger(keepalive) || keepalive < 0 || keepalive > 65535) {
    throw new Error(`client config: persistentKeepalive must be 0–65535 seconds, got ${keepalive}`);
  }
  const lines = [
    `${HEADER_PREFIX}${commentSafeName(input.deviceName)}`,
    PRIVATE_KEY_WARNING,
    '',
    '[Interface]',
    `PrivateKey = ${input.privateKey}`,
    `Address = ${input.addresses.join(', ')}`,
    ...(input.dns.length > 0 ? [`DNS = ${input.dns.join(', ')}`] : []),
    ...(input.killSwitch ? killSwitchLines() : []),
    '',
    '[Peer]',
    `PublicKey = ${input.serverPublicKey}`,
    ...(input.presharedKey ? [`PresharedKey = ${input.presharedKey}`] : []),
    `Endpoint = ${input.endpoint}`,
    `AllowedIPs = ${allowedIps.join(', ')}`,
    ...(keepalive > 0 ? [`PersistentKeepalive = ${keepalive}`] : []),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * A file name that is safe everywhere and doubles as the wg-quick interface name: lowercase
 * letters, digits, "-" and "_", at most CONFIG_FILE_STEM_MAX_LENGTH characters, then ".conf".
 * Accents are dropped ("Café" → "cafe"), other runs of characters become "-"; nothing usable
 * left (or a name Windows reserves) gives FALLBACK_CONFIG_FILE_NAME.
 */
export function configFileName(deviceName: string): string {
  const stem = deviceName
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/['’]+/g, '')
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-_]+/, '')
    .slice(0, CONFIG_FILE_STEM_MAX_LENGTH)
    .replace(/[-_]+$/, '');
  return stem === '' || WINDOWS_RESERVED_NAME.test(stem) ? FALLBACK_CONFIG_FILE_NAME : `${stem}.conf`;
}

/** Reads a one-peer client config (ours or hand-written); keys are case-insensitive as in `wg`. */
export function parseClientConfig(text: string): ClientConfig {
  let deviceName: string | null = null;
  let section: 'none' | 'interface' | 'peer' = 'none';
  let interfaces = 0;
  let peers = 0;
  const config: ClientConfig = {
    deviceName: null,
    privateKey: '',
    addresses: [],
    dns: [],
    serverPublicKey: '',
    presharedKey: null,
    postUp: [],
    preDown: [],
    endpoint: null,
    allowedIps: [],
    persistentKeepalive: null,
  };
  for (const [index, rawLine] of text.split(/\r?\n/).entries()) {
    if (section === 'none' && deviceName === null && rawLine.startsWith(HEADER_PREFIX)) {
      deviceName = rawLine.slice(HEADER_PREFIX.length).trim();
    }
    const line = stripComment(rawLine);
    if (line === '') continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      const name = (header[1] ?? '').toLowerCase();
      if (name === 'interface') {
        section = 'interface';
        interfaces += 1;
      } else if (name === 'peer') {
        section = 'peer';
        peers += 1;
      } else {
        throw new Error(`client config line ${index + 1}: unknown section [${header[1]}]`);
      }
      continue;
    }
    const equals = line.indexOf('=');
    if (equals < 0 || section === 'none')
      throw new Error(`client config line ${index + 1}: expected "Key = value" inside a section`);
    const key = line.slice(0, equals).trim().toLowerCase();
    const value = line.slice(equals + 1).trim();
    if (section === 'interface') {
      if (key === 'privatekey') config.privateKey = value;
      else if (key === 'address') config.addresses.push(...splitList(value));
      else if (key === 'dns') config.dns.push(...splitList(value));
      else if (key === 'postup') config.postUp.push(value);
      else if (key === 'predown') config.preDown.push(value);
    } else if (key === 'publickey') config.serverPublicKey = value;
    else if (key === 'presharedkey') config.presharedKey = value;
    else if (key === 'endpoint') config.endpoint = value;
    else if (key === 'allowedips') config.allowedIps.push(...splitList(value));
    else if (key === 'persistentkeepalive') config.persistentKeepalive = keepaliveValue(value, index + 1);
  }
  if (interfaces !== 1 || peers !== 1) {
    throw new Error(`client config must have one [Interface] and one [Peer], found ${interfaces} and ${peers}`);
  }
  if (!isWireGuardKey(config.privateKey))
    throw new Error('client config: PrivateKey is missing or not a WireGuard key');
  if (!isWireGuardKey(config.serverPublicKey))
    throw new Error('client config: PublicKey is missing or not a WireGuard key');
  if (config.presharedKey !== null && !isWireGuardKey(config.presharedKey))
    throw new Error('client config: PresharedKey is not a WireGuard key');
  return { ...config, deviceName };
}

/**
 * The config without wg-quick-only interface keys (Address, DNS, MTU, Table, hooks, SaveConfig)
 * and without comments, i.e. what `wg setconf <iface> <file>` accepts.
 */
export function toWgSetconf(text: string): string {
  const kept: string[] = [];
  let inInterface = false;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = stripComment(rawLine);
    if (line === '') continue;
    if (line.startsWith('[')) {
      inInterface = line.toLowerCase() === '[interface]';
      if (kept.length > 0) kept.push('');
      kept.push(line);
      continue;
    }
    const key = line
      .slice(0, Math.max(0, line.indexOf('=')))
      .trim()
      .toLowerCase();
    if (inInterface && WG_QUICK_ONLY_KEYS.has(key)) continue;
    kept.push(line);
  }
  return kept.length === 0 ? '' : `${kept.join('\n')}\n`;
}

function requireCidrs(field: string, values: readonly string[]): void {
  if (values.length === 0) throw new Error(`client config: ${field} must not be empty`);
  for (const value of values) {
    if (parseCidr(value) === null || !value.includes('/')) {
      throw new Error(`client config: ${field} entry ${JSON.stringify(value)} is not an address/prefix`);
    }
  }
}

function isEndpoint(endpoint: string): boolean {
  const match = ENDPOINT.exec(endpoint);
  const port = Number(match?.[1]);
  return match !== null && port >= 1 && port <= 65535;
}

/** A name from a user must not end the comment line and start config lines of its own. */
function commentSafeName(deviceName: string): string {
  const name = deviceName.replace(/[\p{Cc}\p{Zl}\p{Zp}\s]+/gu, ' ').trim();
  return name === '' ? 'device' : name;
}

function stripComment(line: string): string {
  const hash = line.indexOf('#');
  return (hash < 0 ? line : line.slice(0, hash)).trim();
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function keepaliveValue(value: string, lineNumber: number): number | null {
  if (value.toLowerCase() === 'off') return null;
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) {
    throw new Error(`client config line ${lineNumber}: PersistentKeepalive must be "off" or 0–65535`);
  }
  return Number(value) === 0 ? null : Number(value);
}
