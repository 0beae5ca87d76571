import { describe, expect, it } from 'vitest';
import { AppError } from '@qw/contracts';
import { tunnelLinesOf } from '../src/config-delivery/config-rules.ts';
import { defaultPrivacy, privacyAfter, privacyView, samePrivacy } from '../src/devices/device-privacy-rules.ts';

const refusal = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return error instanceof AppError ? { code: error.code, message: error.message } : error;
  }
  return null;
};

describe('privacyAfter', () => {
  it('keeps what the change leaves out, and takes the defaults on an add that says nothing', () => {
    expect(privacyAfter(defaultPrivacy, {})).toEqual({ blocking_mask: 0, split_tunnel: 'all', custom_routes: [] });
    const custom = { blocking_mask: 3, split_tunnel: 'custom' as const, custom_routes: ['10.1.0.0/16'] };
    expect(privacyAfter(custom, { blocking: ['gambling'] })).toEqual({ ...custom, blocking_mask: 16 });
    expect(privacyAfter(custom, { split_tunnel: 'custom' })).toEqual(custom);
    expect(privacyAfter(custom, { custom_routes: ['192.168.4.9/24'] }).custom_routes).toEqual(['192.168.4.0/24']);
    expect(privacyAfter(custom, { split_tunnel: 'except_local' })).toEqual({
      blocking_mask: 3,
      split_tunnel: 'except_local',
      custom_routes: [],
    });
    expect(privacyAfter(defaultPrivacy, { blocking: ['ads', 'ads', 'adult'] }).blocking_mask).toBe(9);
  });

  it('refuses custom without routes, bad routes, and routes with another preset (422 invalid_routes)', () => {
    expect(refusal(() => privacyAfter(defaultPrivacy, { split_tunnel: 'custom' }))).toMatchObject({
      code: 'invalid_routes',
      message: 'Add at least one route, such as 192.168.1.0/24, or choose another option.',
    });
    expect(
      refusal(() => privacyAfter(defaultPrivacy, { split_tunnel: 'custom', custom_routes: ['nas.local'] })),
    ).toMatchObject({ code: 'invalid_routes', message: expect.stringContaining('"nas.local" is not an IP address') });
    expect(refusal(() => privacyAfter(defaultPrivacy, { custom_routes: ['10.0.0.0/8'] }))).toMatchObject({
      code: 'invalid_routes',
    });
    // Empty lines sent with another preset are no routes at all.
    expect(privacyAfter(defaultPrivacy, { split_tunnel: 'all', custom_routes: ['', ' '] }).custom_routes).toEqual([]);
  });

  it('tells a change from none', () => {
    expect(samePrivacy(defaultPrivacy, { ...defaultPrivacy })).toBe(true);
    expect(samePrivacy(defaultPrivacy, { ...defaultPrivacy, blocking_mask: 1 })).toBe(false);
    expect(privacyView({ blocking_mask: 5, split_tunnel: 'all', custom_routes: [] })).toEqual({
      blocking: ['ads', 'malware'],
      split_tunnel: 'all',
      custom_routes: [],
    });
  });
});

describe('tunnelLinesOf', () => {
  it("names the node's resolver for its mask, or the override; AllowedIPs per preset", () => {
    const node = { node_index: 2 };
    expect(tunnelLinesOf(defaultPrivacy, node, [])).toEqual({
      dns: ['10.66.0.1', 'fd7a:5157:7769:2::1'],
      allowedIps: ['0.0.0.0/0', '::/0'],
    });
    const blocked = { blocking_mask: 31, split_tunnel: 'custom' as const, custom_routes: ['198.51.100.0/24'] };
    expect(tunnelLinesOf(blocked, node, [])).toEqual({
      dns: ['100.64.0.31', 'fd7a:5157:7769:ffff::1f'],
      allowedIps: ['198.51.100.0/24', '100.64.0.31/32', 'fd7a:5157:7769:ffff::1f/128'],
    });
    expect(tunnelLinesOf(blocked, node, ['192.0.2.53']).dns).toEqual(['192.0.2.53']);
    const local = tunnelLinesOf({ ...defaultPrivacy, split_tunnel: 'except_local' }, node, []).allowedIps;
    expect(local).toContain('10.66.0.0/16');
    expect(local).toContain('fd7a:5157:7769:2::/64');
    expect(local).not.toContain('0.0.0.0/0');
  });
});
