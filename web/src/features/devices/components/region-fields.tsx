import type { RegionChoice } from '@qw/contracts';
import { useMemo } from 'react';
import { Field, Select } from '../../../ui';
import { countryFromLanguages, countryOptions, isRegionChoice, regionChoiceOptions } from '../utils/region-choice';

/** The browser's own guess at the person's country, for the picker's first value ('' when it has none). */
export function browserCountry(): string {
  if (typeof navigator === 'undefined') return '';
  return countryFromLanguages(navigator.languages?.length ? navigator.languages : [navigator.language]) ?? '';
}

/**
 * Issue #23: where a new device connects. Region: Automatic (the default), North America, Europe
 * or Asia; with Automatic, the person's country picks the nearest region (a built-in map, no IP
 * database). Both add forms (personal and business) use these fields.
 */
export function RegionFields({
  idPrefix,
  region,
  onRegionChange,
  country,
  onCountryChange,
}: {
  idPrefix: string;
  region: RegionChoice;
  onRegionChange: (region: RegionChoice) => void;
  country: string;
  onCountryChange: (country: string) => void;
}) {
  const countries = useMemo(countryOptions, []);
  return (
    <>
      <Field id={`${idPrefix}-region`} label="Region" className="devices-add__region">
        <Select
          name="region"
          value={region}
          onChange={(event) => isRegionChoice(event.target.value) && onRegionChange(event.target.value)}
          options={regionChoiceOptions}
        />
      </Field>
      {region === 'auto' && (
        <Field id={`${idPrefix}-country`} label="Your country" className="devices-add__country">
          <Select
            name="country"
            value={country}
            aria-describedby={`${idPrefix}-country-note`}
            onChange={(event) => onCountryChange(event.target.value)}
          >
            <option value="">Not said (the least busy server anywhere)</option>
            {countries.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </Select>
        </Field>
      )}
    </>
  );
}

/** Said under the form while Automatic asks for a country: why, and that it is kept. */
export function CountryNote({ idPrefix, region }: { idPrefix: string; region: RegionChoice }) {
  if (region !== 'auto') return null;
  return (
    <p className="qw-small qw-muted devices-add__note" id={`${idPrefix}-country-note`}>
      Your country is used only to pick the nearest region; it is kept with the device.
    </p>
  );
}
