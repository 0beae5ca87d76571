import { describe, expect, it } from 'vitest';
import { knownCountries } from '@qw/contracts';
import {
  countryFromLanguages,
  countryName,
  countryOptions,
  isRegionChoice,
  regionBody,
  regionChoiceOptions,
  regionChoiceText,
} from '../src/features/devices/utils/region-choice';

/** Issue #23: the region picker's data, without a browser. */
describe('the region picker', () => {
  it('offers Automatic first, then the three regions', () => {
    expect(regionChoiceOptions).toEqual([
      { value: 'auto', label: 'Automatic' },
      { value: 'north-america', label: 'North America' },
      { value: 'europe', label: 'Europe' },
      { value: 'asia', label: 'Asia' },
    ]);
    expect(isRegionChoice('asia')).toBe(true);
    expect(isRegionChoice('eu-central')).toBe(false);
    expect(isRegionChoice('')).toBe(false);
  });

  it('lists every country of the built-in map once, by its English name', () => {
    const options = countryOptions();
    expect(options.map((o) => o.value).sort()).toEqual(knownCountries);
    const labels = options.map((o) => o.label);
    expect(labels).toEqual([...labels].sort((a, b) => a.localeCompare(b, 'en')));
    expect(options.find((o) => o.value === 'DE')?.label).toBe('Germany');
    expect(options.find((o) => o.value === 'US')?.label).toBe('United States');
    expect(countryName('JP')).toBe('Japan');
  });

  it('takes the default country from the browser’s languages, the first with a known region', () => {
    expect(countryFromLanguages(['en-US'])).toBe('US');
    expect(countryFromLanguages(['de-AT', 'de'])).toBe('AT');
    expect(countryFromLanguages(['en-gb'])).toBe('GB');
    // A language alone says nothing about where the person is; the next tag may.
    expect(countryFromLanguages(['de'])).toBeNull();
    expect(countryFromLanguages(['fr', 'fr-CA'])).toBe('CA');
    // A region the map does not know (Antarctica), or a tag that is no tag: no guess.
    expect(countryFromLanguages(['en-AQ'])).toBeNull();
    expect(countryFromLanguages(['not a tag!', 'ja-JP'])).toBe('JP');
    expect(countryFromLanguages([])).toBeNull();
  });

  it('sends a country only with Automatic, and says what a device asked for', () => {
    expect(regionBody('auto', 'DE')).toEqual({ region: 'auto', country: 'DE' });
    expect(regionBody('auto', '')).toEqual({ region: 'auto' });
    expect(regionBody('asia', 'DE')).toEqual({ region: 'asia' });
    expect(regionChoiceText('europe', 'US')).toBe('Europe');
    expect(regionChoiceText('auto', 'DE')).toBe('Automatic (nearest to Germany)');
    expect(regionChoiceText('auto', null)).toBe('Automatic');
  });
});
