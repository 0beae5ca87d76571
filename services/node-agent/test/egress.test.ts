import { describe, expect, it } from 'vitest';
import { egressOf } from '../src/config.ts';

describe('egressOf (NODE_EGRESS)', () => {
  it('is NODE_EGRESS when said, each address in its canonical form', () => {
    expect(egressOf({ NODE_EGRESS: '203.0.113.7,2001:DB8:0::7', NODE_IP: '198.51.100.1' })).toEqual([
      '203.0.113.7',
      '2001:db8::7',
    ]);
  });

  it('is NODE_IP when that is an address, and nothing when it is a host name', () => {
    expect(egressOf({ NODE_IP: '198.51.100.1' })).toEqual(['198.51.100.1']);
    expect(egressOf({ NODE_IP: 'vpn1.example.com' })).toEqual([]);
  });

  it('stops the agent on an egress that is not an address', () => {
    expect(() => egressOf({ NODE_EGRESS: '203.0.113.7,1.2.3', NODE_IP: '198.51.100.1' })).toThrow(
      /NODE_EGRESS: "1.2.3" is not an IP address/,
    );
  });
});
