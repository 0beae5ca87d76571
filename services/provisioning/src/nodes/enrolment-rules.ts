import { createHash } from 'node:crypto';
import { AppError, enrolmentTokenTtlSeconds, type NodeStatus } from '@qw/contracts';
import { canonicalAddress } from '@qw/wireguard';

/**
 * A server's one-time enrolment, as functions of data: a token is kept only as its hash, is
 * valid for an hour and once, and a newer token for the same server replaces it (the earlier
 * rows are deleted, so the old token reads as unknown).
 */

/** What is kept of a token: its SHA-256, hex (a token is 32 random bytes, so no salt or stretching is needed). */
export function enrolmentTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function enrolmentExpiry(now: Date): Date {
  return new Date(now.getTime() + enrolmentTokenTtlSeconds * 1000);
}

/** The enrolment a token names, with the status of its server; undefined when no row has its hash. */
export type EnrolmentFacts = { expires_at: Date | string; used_at: Date | string | null; node_status: NodeStatus };

/** Why a host may not enrol with this token now, or null when it may. */
export function enrolmentRefusal(enrolment: EnrolmentFacts | undefined, now: Date): AppError | null {
  if (!enrolment)
    return new AppError(
      'invalid_token',
      'This enrolment token is not valid. Copy the install command again from the console, or make a new token there.',
    );
  if (enrolment.used_at !== null)
    return new AppError(
      'token_used',
      'This enrolment token was used already. Each token enrols one host once; make a new token in the console.',
    );
  if (enrolment.node_status === 'retired')
    return new AppError('forbidden', 'This server was retired; add it again in the console to enrol a host.');
  if (new Date(enrolment.expires_at).getTime() <= now.getTime())
    return new AppError(
      'token_expired',
      'This enrolment token has expired (tokens are valid for an hour). Make a new token in the console.',
    );
  return null;
}

/** Why a server may not be given a new token: only a server waiting for its host takes one. */
export function newEnrolmentRefusal(status: NodeStatus): AppError | null {
  if (status === 'pending') return null;
  return new AppError(
    'conflict',
    status === 'active'
      ? 'This server is enrolled already; a new token is only for a server waiting for its host.'
      : 'This server was retired; add a new server instead.',
  );
}

/** An endpoint devices connect to, `host:port` or `[v6]:port`: its host and port, or null when it is neither. */
export function parseEndpoint(endpoint: string): { host: string; port: number } | null {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):([0-9]{1,5})$/.exec(endpoint.trim());
  if (!match) return null;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return null;
  return { host: (match[1] ?? match[2])!, port };
}

/** The endpoint's parts, or a 400 saying what an endpoint looks like. */
export function endpointParts(endpoint: string): { host: string; port: number } {
  const parts = parseEndpoint(endpoint);
  if (!parts)
    throw new AppError(
      'validation_failed',
      'The endpoint is the host and port devices connect to, such as 203.0.113.7:51820 or vpn1.example.com:51820.',
      { field: 'endpoint' },
    );
  return parts;
}

/** Whether a registering node keeps the operator's settings (added in the console) or says its own (a legacy node). */
export function keepsOperatorSettings(node: { status: NodeStatus; enrolled_at: Date | string | null }): boolean {
  return node.status === 'pending' || node.enrolled_at !== null;
}

/** Why a node may not register, or null: a retired node's host stays out. */
export function registrationRefusal(status: NodeStatus): AppError | null {
  return status === 'retired' ? new AppError('forbidden', 'This server was retired; it may not register again.') : null;
}

/** Why a node may not be retired now, or null: devices on it are moved off by a drain first. */
export function retirementRefusal(devicesOnIt: number): AppError | null {
  if (devicesOnIt === 0) return null;
  return new AppError(
    'node_not_empty',
    `Drain it first: ${devicesOnIt} ${devicesOnIt === 1 ? 'device is' : 'devices are'} still on it.`,
    { devices: devicesOnIt },
  );
}

/**
 * A node's egress addresses as stored and compared (issue #25): each in its canonical form, no
 * repeats; a 400 when one is not an IP address (a host name says nothing about where packets leave from).
 */
export function egressAddresses(said: readonly string[]): string[] {
  const addresses = said.map((text) => {
    const address = canonicalAddress(text);
    if (address === null)
      throw new AppError(
        'validation_failed',
        'An egress address is an IPv4 or IPv6 address, such as 203.0.113.7 or 2001:db8::7.',
        { field: 'egress' },
      );
    return address;
  });
  return [...new Set(addresses)];
}
