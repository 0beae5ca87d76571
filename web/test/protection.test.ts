import { describe, expect, it } from 'vitest';
import { leakProtection, platforms } from '@qw/contracts';
import { withKillSwitch } from '../src/features/devices/components/device-setup-modal';
import { protection } from '../src/features/devices/utils/protection';

const key = `${'k'.repeat(43)}=`;
const laptop = { name: 'Ada laptop', public_key: key, node: { name: 'eu-1', region: 'europe', city: 'Frankfurt' } };
const answer = { through_tunnel: true, public_key: key, node: 'eu-1', resolvers: ['10.64.0.1', 'fd7a:5157:7769::1'] };

const gatewayYes = {
  protected: true,
  server: { name: 'eu-2', city: 'Paris', region: 'europe' as const },
  resolvers: ['10.65.0.1', 'fd7a:5157:7769:1::1'],
};
const gatewayNo = { protected: false, server: null, resolvers: [] };
const notProtected = {
  state: 'not_protected',
  text: 'Not protected: this browser does not reach the internet through a Quietwire tunnel.',
};

describe('"Am I protected?"', () => {
  it('names the device and its server when the node answers with one of the person’s keys', () => {
    for (const gateway of [gatewayYes, gatewayNo, null, undefined])
      expect(protection(answer, gateway, [laptop], false)).toEqual({
        state: 'protected',
        text: 'Protected: this browser is on Ada laptop, via Frankfurt, Europe.',
        resolvers: answer.resolvers,
        deviceUnknown: false,
      });
  });

  it('still says protected through a tunnel of a device that is not the person’s own', () => {
    expect(protection({ ...answer, public_key: `${'z'.repeat(43)}=` }, gatewayNo, [laptop], false)).toMatchObject({
      state: 'protected',
      text: 'Protected: this browser is on a Quietwire tunnel, via server eu-1, but not one of your devices.',
    });
  });

  it('on the secure site, protected by the gateway’s check names the server and claims no device', () => {
    expect(protection(null, gatewayYes, [laptop], true)).toEqual({
      state: 'protected',
      text: 'Protected: this browser reaches the internet through Quietwire, via Paris, Europe.',
      resolvers: gatewayYes.resolvers,
      deviceUnknown: true,
    });
    // A plain page whose node check got nothing (a split tunnel, the check port off) still hears the gateway.
    expect(protection(null, gatewayYes, [laptop], false).state).toBe('protected');
  });

  it('says not protected when the gateway saw a request from elsewhere, or from a plain page nothing answered', () => {
    expect(protection(null, gatewayNo, [laptop], true)).toEqual(notProtected);
    expect(protection(null, gatewayNo, [laptop], false)).toEqual(notProtected);
    expect(protection({ ...answer, through_tunnel: false, public_key: null }, gatewayNo, [laptop], true)).toEqual(
      notProtected,
    );
    expect(protection(null, null, [laptop], false)).toEqual(notProtected);
  });

  it('claims nothing from a secure page when the check did not answer, and waits for both checks', () => {
    expect(protection(null, null, [laptop], true).state).toBe('cannot_check');
    expect(protection(null, undefined, [laptop], true).state).toBe('checking');
    expect(protection(undefined, gatewayNo, [laptop], false).state).toBe('checking');
  });
});

describe('leak protection', () => {
  it('says how for every platform, Linux through the file’s kill switch', () => {
    for (const platform of platforms) expect(leakProtection[platform].length).toBeGreaterThan(20);
    expect(leakProtection.windows).toContain('Block untunneled traffic (kill-switch)');
    expect(leakProtection.android).toContain('Block connections without VPN');
    expect(leakProtection.linux).toContain('Block traffic outside the tunnel');
  });

  it('asks for the kill switch on the download link only when ticked', () => {
    expect(withKillSwitch('/api/device/x/config?token=t', true)).toBe('/api/device/x/config?token=t&kill_switch=true');
    expect(withKillSwitch('/api/device/x/config', true)).toBe('/api/device/x/config?kill_switch=true');
    expect(withKillSwitch('/api/device/x/config?token=t', false)).toBe('/api/device/x/config?token=t');
  });
});
