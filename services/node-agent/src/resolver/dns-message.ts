import { randomInt } from 'node:crypto';
import { formatIpv6 } from '@qw/wireguard';

/** DNS record types the probe asks for. */
export const dnsType = { A: 1, AAAA: 28 } as const;

/** A recursive query for one name (RFC 1035 §4.1), with a random id. */
export function dnsQuery(name: string, type: number, id: number = randomInt(0, 0x10000)): Buffer {
  const labels = name.replace(/\.$/, '').split('.').filter(Boolean);
  const question = Buffer.concat([
    ...labels.map((label) => {
      const bytes = Buffer.from(label, 'ascii');
      if (bytes.length > 63) throw new Error('a DNS label holds at most 63 bytes');
      return Buffer.concat([Buffer.from([bytes.length]), bytes]);
    }),
    Buffer.from([0, type >> 8, type & 0xff, 0, 1]),
  ]);
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x0100, 2); // RD
  header.writeUInt16BE(1, 4);
  return Buffer.concat([header, question]);
}

export type DnsAnswer = {
  id: number;
  /** 0 NOERROR, 2 SERVFAIL, 3 NXDOMAIN, 5 REFUSED. */
  rcode: number;
  /** The A and AAAA addresses of the answer section. */
  addresses: string[];
};

function skipName(message: Buffer, offset: number): number {
  let at = offset;
  for (;;) {
    const length = message[at];
    if (length === undefined) throw new Error('truncated DNS name');
    if (length === 0) return at + 1;
    if ((length & 0xc0) === 0xc0) return at + 2;
    at += length + 1;
  }
}

/** The id, rcode and addresses of a DNS response; throws on a message that is not one. */
export function parseDnsResponse(message: Buffer): DnsAnswer {
  if (message.length < 12) throw new Error('DNS message shorter than its header');
  const flags = message.readUInt16BE(2);
  if ((flags & 0x8000) === 0) throw new Error('not a DNS response');
  const questions = message.readUInt16BE(4);
  const answers = message.readUInt16BE(6);
  let at = 12;
  for (let i = 0; i < questions; i += 1) at = skipName(message, at) + 4;
  const addresses: string[] = [];
  for (let i = 0; i < answers; i += 1) {
    at = skipName(message, at);
    if (at + 10 > message.length) throw new Error('truncated DNS record');
    const type = message.readUInt16BE(at);
    const length = message.readUInt16BE(at + 8);
    const data = message.subarray(at + 10, at + 10 + length);
    if (data.length !== length) throw new Error('truncated DNS record data');
    if (type === dnsType.A && length === 4) addresses.push([...data].join('.'));
    if (type === dnsType.AAAA && length === 16) addresses.push(formatIpv6(BigInt(`0x${data.toString('hex')}`)));
    at += 10 + length;
  }
  return { id: message.readUInt16BE(0), rcode: flags & 0x0f, addresses };
}
