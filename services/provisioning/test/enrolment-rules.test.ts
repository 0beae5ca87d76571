import { describe, expect, it } from 'vitest';
import { enrolmentTokenTtlSeconds, type NodeStatus } from '@qw/contracts';
import {
  enrolmentExpiry,
  enrolmentRefusal,
  enrolmentTokenHash,
  keepsOperatorSettings,
  newEnrolmentRefusal,
  parseEndpoint,
  registrationRefusal,
  retirementRefusal,
} from '../src/nodes/enrolment-rules.ts';

const now = new Date('2027-02-01T12:00:00Z');
const valid = { expires_at: enrolmentExpiry(now), used_at: null, node_status: 'pending' as NodeStatus };
const codeOf = (error: Error | null) => (error as { code?: string } | null)?.code ?? null;

describe('enrolment tokens', () => {
  it('are kept as a SHA-256 of the token, never the token', () => {
    const hash = enrolmentTokenHash('a-token-of-forty-three-characters-base64url');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).toBe(enrolmentTokenHash('a-token-of-forty-three-characters-base64url'));
    expect(hash).not.toBe(enrolmentTokenHash('a-token-of-forty-three-characters-base64urL'));
  });

  it('are valid for an hour', () => {
    expect(enrolmentExpiry(now).getTime() - now.getTime()).toBe(enrolmentTokenTtlSeconds * 1000);
    expect(enrolmentTokenTtlSeconds).toBe(3600);
  });

  it('enrol while unused, unexpired and the server not retired', () => {
    expect(enrolmentRefusal(valid, now)).toBeNull();
    expect(enrolmentRefusal(valid, new Date(now.getTime() + 3599_000))).toBeNull();
    expect(enrolmentRefusal({ ...valid, node_status: 'active' }, now)).toBeNull();
  });

  it('refuse an unknown token with 401, a used one with 409 and an expired one with 410', () => {
    expect(codeOf(enrolmentRefusal(undefined, now))).toBe('invalid_token');
    expect(codeOf(enrolmentRefusal({ ...valid, used_at: now }, now))).toBe('token_used');
    expect(codeOf(enrolmentRefusal(valid, new Date(now.getTime() + 3600_000)))).toBe('token_expired');
    expect(codeOf(enrolmentRefusal({ ...valid, node_status: 'retired' }, now))).toBe('forbidden');
  });

  it('say "used" before "expired": a spent token stays spent whatever its age', () => {
    const later = new Date(now.getTime() + 7200_000);
    expect(codeOf(enrolmentRefusal({ ...valid, used_at: now }, later))).toBe('token_used');
  });

  it('are given anew only to a server still waiting for its host', () => {
    expect(newEnrolmentRefusal('pending')).toBeNull();
    expect(codeOf(newEnrolmentRefusal('active'))).toBe('conflict');
    expect(codeOf(newEnrolmentRefusal('retired'))).toBe('conflict');
  });
});

describe('endpoints', () => {
  it('split into host and port', () => {
    expect(parseEndpoint('203.0.113.7:51820')).toEqual({ host: '203.0.113.7', port: 51820 });
    expect(parseEndpoint('vpn1.example.com:443')).toEqual({ host: 'vpn1.example.com', port: 443 });
    expect(parseEndpoint('[2001:db8::1]:51820')).toEqual({ host: '2001:db8::1', port: 51820 });
  });

  it('without a port, with a port out of range or with other characters are not endpoints', () => {
    for (const bad of ['203.0.113.7', '203.0.113.7:0', 'host:65536', 'a b:1', '2001:db8::1:51820', 'x;rm:1'])
      expect(parseEndpoint(bad), bad).toBeNull();
  });
});

describe('registration and retirement', () => {
  it('keep the operator settings of a server added in the console, not of a legacy node', () => {
    expect(keepsOperatorSettings({ status: 'pending', enrolled_at: null })).toBe(true);
    expect(keepsOperatorSettings({ status: 'active', enrolled_at: now })).toBe(true);
    expect(keepsOperatorSettings({ status: 'active', enrolled_at: null })).toBe(false);
  });

  it('refuse a retired node', () => {
    expect(codeOf(registrationRefusal('retired'))).toBe('forbidden');
    expect(registrationRefusal('active')).toBeNull();
    expect(registrationRefusal('pending')).toBeNull();
  });

  it('refuse to retire a node with devices, saying how many', () => {
    expect(retirementRefusal(0)).toBeNull();
    expect(retirementRefusal(1)?.message).toBe('Drain it first: 1 device is still on it.');
    expect(retirementRefusal(3)?.message).toBe('Drain it first: 3 devices are still on it.');
    expect(codeOf(retirementRefusal(3))).toBe('node_not_empty');
  });
});
