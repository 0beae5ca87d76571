import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { promisify } from 'node:util';
import { dnsQuery, dnsType, parseDnsResponse, type DnsAnswer } from './dns-message.ts';

const run = promisify(execFile);

/** Sends one UDP datagram and waits for one answer; prints it as hex. Run as `node -e` inside a namespace. */
const probeScript = `
const dgram = require('node:dgram');
const [address, port, hex, ms] = process.argv.slice(1);
const socket = dgram.createSocket(address.includes(':') ? 'udp6' : 'udp4');
const timer = setTimeout(() => process.exit(2), Number(ms));
socket.on('message', (m) => { process.stdout.write(m.toString('hex')); clearTimeout(timer); socket.close(); });
socket.on('error', () => process.exit(3));
socket.send(Buffer.from(hex, 'hex'), Number(port), address);
`;

/** One UDP exchange with a resolver from this process's own network namespace. */
function exchangeHere(address: string, port: number, query: Buffer, timeoutMs: number): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket(address.includes(':') ? 'udp6' : 'udp4');
    const done = (answer: Buffer | null) => {
      clearTimeout(timer);
      socket.close();
      resolve(answer);
    };
    const timer = setTimeout(() => done(null), timeoutMs);
    socket.on('message', (message) => done(message));
    socket.on('error', () => done(null));
    socket.send(query, port, address);
  });
}

/** The same exchange from inside the node's namespace, through the agent's command prefix. */
async function exchangeThrough(
  prefix: readonly string[],
  address: string,
  port: number,
  query: Buffer,
  timeoutMs: number,
): Promise<Buffer | null> {
  const [file, ...args] = [
    ...prefix,
    process.execPath,
    '-e',
    probeScript,
    address,
    String(port),
    query.toString('hex'),
    String(timeoutMs),
  ];
  try {
    const { stdout } = await run(file!, args, { timeout: timeoutMs + 5000 });
    return stdout ? Buffer.from(stdout.trim(), 'hex') : null;
  } catch {
    return null;
  }
}

/**
 * Asks the resolver at `address` for the A record of `name` (one UDP query, no retry): its
 * answer, or null when none came within `timeoutMs` or it was no DNS response to this query.
 */
export async function queryResolver(
  address: string,
  name: string,
  options: { port?: number; prefix?: readonly string[]; timeoutMs?: number; type?: number } = {},
): Promise<DnsAnswer | null> {
  const { port = 53, prefix = [], timeoutMs = 1000, type = dnsType.A } = options;
  const query = dnsQuery(name, type);
  const raw =
    prefix.length > 0
      ? await exchangeThrough(prefix, address, port, query, timeoutMs)
      : await exchangeHere(address, port, query, timeoutMs);
  if (!raw) return null;
  try {
    const answer = parseDnsResponse(raw);
    return answer.id === query.readUInt16BE(0) ? answer : null;
  } catch {
    return null;
  }
}
