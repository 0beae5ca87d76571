import { describe, expect, it } from 'vitest';
import { declaredLogKinds, declaredStreamKinds, declaredTable } from '@qw/contracts';
import { scanner, stringsOf } from './support/privacy-scan.ts';

const scan = scanner({
  tunnelRanges: ['10.64.0.0/10', 'fd7a:5157:7769::/48'],
  nodeAddresses: new Set(['203.0.113.70']),
  secrets: new Map([['s3cret-refresh-token-value', 'token']]),
});
const kinds = (text: string) => scan(text).map((hit) => hit.kind);

describe('the privacy audit search', () => {
  it('finds what it looks for', () => {
    expect(kinds('sign-in from 198.51.100.23 failed')).toEqual(['client_ip']);
    expect(kinds('peer 2001:db8:85a3::8a2e:370:7334 up')).toEqual(['client_ip']);
    expect(kinds('endpoint 198.51.100.0/24')).toEqual(['masked_client_network']);
    expect(kinds('mail to Pia.P@example.co.uk')).toEqual(['email']);
    expect(kinds('Authorization: Bearer abcdefghij.klmnop')).toEqual(['token']);
    expect(kinds('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl')).toEqual(['token']);
    expect(kinds('PrivateKey = aGVsbG8gd29ybGQgaGVsbG8gd29ybGQgaGVsbG8gd28=')).toEqual(['private_key']);
    expect(kinds('cookie s3cret-refresh-token-value')).toEqual(['token']);
  });

  it('tells tunnel, node and loopback addresses from a client’s, and leaves times and versions alone', () => {
    expect(kinds('10.64.0.2/32 fd7a:5157:7769::2/128')).toEqual(['tunnel_address', 'tunnel_address']);
    expect(kinds('node at 203.0.113.70:51820, health on 127.0.0.1 and ::1')).toEqual([
      'node_address',
      'loopback',
      'loopback',
    ]);
    expect(kinds('at 17:51:28, version 1.2.3, [ip] [email] [key] [redacted]')).toEqual([]);
  });

  it('walks every string of a value with its path', () => {
    expect(stringsOf({ a: { b: ['x', 1] }, c: null })).toEqual([
      { path: 'a.b[]', text: 'x' },
      { path: 'a.b[]', text: '1' },
    ]);
  });

  it('reads the declaration: tables (also a generation’s), log fields and stream fields', () => {
    expect(declaredTable('identity', 'users')?.personal.find((c) => c.column === 'email')?.kinds).toEqual(['email']);
    expect(declaredTable('telemetry', 'inbox')?.service).toBe('every');
    expect(declaredTable('analytics', 'g7_customers')?.table).toBe('g{n}_customers');
    expect(declaredTable('identity', 'secrets')).toBeUndefined();
    expect(declaredLogKinds('err.message')).toEqual([]);
    expect(declaredStreamKinds('NODE', 'node.eu-1.peers.sampled', 'data.peers[].maskedEndpoint')).toEqual([
      'masked_client_network',
    ]);
    expect(declaredStreamKinds('IDENTITY', 'identity.user.registered', 'data.email')).toEqual([]);
  });
});
