import { knownCountries, regionChoices, regionForCountry, regionLabel, type RegionChoice } from '@qw/contracts';

/**
 * The region picker's data (issue #23), as functions of data: tested without a browser in
 * web/test/region-choice.test.ts.
 */

/** Automatic first (the default), then North America, Europe, Asia. */
export const regionChoiceOptions: { value: RegionChoice; label: string }[] = regionChoices.map((choice) => ({
  value: choice,
  label: regionLabel(choice),
}));

export function isRegionChoice(value: string): value is RegionChoice {
  return (regionChoices as string[]).includes(value);
}

/** A country's name in English ('DE' → 'Germany'); the code itself where the runtime has no name for it. */
export function countryName(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** Every country the built-in map knows, by name: the "Your country" picker's choices. */
export function countryOptions(): { value: string; label: string }[] {
  return knownCountries
    .map((code) => ({ value: code, label: countryName(code) }))
    .sort((a, b) => a.label.localeCompare(b.label, 'en'));
}

/**
 * The country the browser's languages point at ('en-US' → 'US', 'de-AT' → 'AT'), the first one
 * the map knows; a tag without a region ('de') says nothing about where the person is: null.
 */
export function countryFromLanguages(languages: readonly string[]): string | null {
  for (const tag of languages) {
    let region: string | undefined;
    try {
      region = new Intl.Locale(tag).region;
    } catch {
      continue;
    }
    if (region && regionForCountry(region)) return region.toUpperCase();
  }
  return null;
}

/** What a device asked for, in words: 'Europe', or 'Automatic (nearest to Germany)'. */
export function regionChoiceText(choice: RegionChoice, country: string | null): string {
  if (choice !== 'auto') return regionLabel(choice);
  return country ? `Automatic (nearest to ${countryName(country)})` : 'Automatic';
}

/** The create body's region part: a country goes only with Automatic (placement ignores it otherwise). */
export function regionBody(choice: RegionChoice, country: string): { region: RegionChoice; country?: string } {
  return choice === 'auto' && country ? { region: choice, country } : { region: choice };
}
