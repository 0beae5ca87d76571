import { describe, expect, it } from 'vitest';
import {
  defaultPrivacyChoice,
  privacyBody,
  privacyChoiceOf,
  samePrivacyChoice,
  withCategory,
} from '../src/features/devices/utils/privacy-choice';

describe('a device’s privacy choice on the page (issue #25)', () => {
  it('reads the device, in the contracts’ order of categories', () => {
    expect(
      privacyChoiceOf({
        blocking: ['gambling', 'ads'],
        split_tunnel: 'custom',
        custom_routes: ['10.1.0.0/16', '::/0'],
      }),
    ).toEqual({ blocking: ['ads', 'gambling'], split: 'custom', routes: '10.1.0.0/16\n::/0' });
  });

  it('turns categories on and off', () => {
    const ads = withCategory(defaultPrivacyChoice, 'ads', true);
    expect(withCategory(withCategory(ads, 'adult', true), 'ads', false).blocking).toEqual(['adult']);
    expect(withCategory(withCategory(ads, 'malware', true), 'trackers', true).blocking).toEqual([
      'ads',
      'trackers',
      'malware',
    ]);
  });

  it('sends routes only with "Only the routes I list", as entries', () => {
    expect(privacyBody({ blocking: ['ads'], split: 'all', routes: '10.0.0.0/8' })).toEqual({
      blocking: ['ads'],
      split_tunnel: 'all',
    });
    expect(privacyBody({ blocking: [], split: 'custom', routes: ' 10.0.0.0/8,\n\n192.168.1.0/24 ' })).toEqual({
      blocking: [],
      split_tunnel: 'custom',
      custom_routes: ['10.0.0.0/8', '192.168.1.0/24'],
    });
  });

  it('tells a change from the same choice typed differently', () => {
    const custom = { blocking: [], split: 'custom' as const, routes: '10.0.0.0/8\n192.168.1.0/24' };
    expect(samePrivacyChoice(custom, { ...custom, routes: '10.0.0.0/8, 192.168.1.0/24\n' })).toBe(true);
    expect(samePrivacyChoice(custom, { ...custom, routes: '10.0.0.0/8' })).toBe(false);
    expect(samePrivacyChoice({ ...defaultPrivacyChoice, routes: 'x' }, defaultPrivacyChoice)).toBe(true);
    expect(samePrivacyChoice(defaultPrivacyChoice, withCategory(defaultPrivacyChoice, 'ads', true))).toBe(false);
  });
});
