import { describe, expect, it } from 'vitest';
import { leakProtection, platforms } from '@qw/contracts';
import { withKillSwitch } from '../src/features/devices/components/device-setup-modal';
import { protection } from '../src/features/devices/utils/protection';

const key = `${'k'.repeat(43)}=`;
const laptop = { name: 'Ada laptop', public_key: key, node: { name: 'eu-1', region: 'europe', city: 'Frankfurt' } };
const answer = { through_tunnel: true, public_key: key, node: 'eu-1', resolvers: ['10.64.0.1', 'fd7a:5157:7769::1'] };

describe('"Am I protected?"', () => {
  it('names the device and its server when the node answers with one of the person’s keys', () => {
    expect(protection(answer, [laptop], false)).toEqual({
      state: 'protected',
      text: 'Protected: this browser is on Ada laptop, via Frankfurt, Europe.',
      resolvers: answer.resolvers,
    });
  });

  it('still says protected through a tunnel of a device that is not the person’s own', () => {
    expect(protection({ ...answer, public_key: `${'z'.repeat(43)}=` }, [laptop], true)).toMatchObject({
      state: 'protected',
      text: 'Protected: this browser is on a Quietwire tunnel, via server eu-1, but not one of your devices.',
    });
  });

  it('says not protected when nothing answered from a plain page, or the node saw no tunnel', () => {
    for (const [result, secure] of [
      [null, false],
      [{ ...answer, through_tunnel: false, public_key: null }, true],
    ] as const)
      expect(protection(result, [laptop], secure)).toEqual({
        state: 'not_protected',
        text: 'Not protected: this browser does not reach the internet through a Quietwire tunnel.',
      });
  });

  it('claims nothing from a secure page that got no answer: browsers block it there', () => {
    expect(protection(null, [laptop], true).state).toBe('cannot_check');
    expect(protection(undefined, [laptop], true).state).toBe('checking');
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
