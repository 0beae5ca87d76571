/**
 * The one rule for a path that a page or a server redirects to because a request asked for it: the
 * sign-in page's `next` (spec §2: honoured only if it starts with '/'), the billing portal's
 * `return`. The web, the gateway and billing use this same function, so none is weaker than another.
 */

/** Longer values are refused (the longest path an ordinary link of this site makes is far shorter). */
export const safePathMaxLength = 2048;

// C0 controls, DEL and C1 controls. URL parsing drops tab and newlines (turning '/\t/evil' into
// '//evil'); none of them belongs in a link of ours.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this refuses
const controlCharacters = /[\u0000-\u001f\u007f-\u009f]/;

const probeOrigin = 'https://quietwire.invalid';

/**
 * `raw` when it is a path on this site, else null. It must start with '/', but not with '//' or
 * '/\' (browsers read both as another host), hold no control characters, be at most
 * `safePathMaxLength` characters, and still be a path of this site once dot segments are resolved
 * ('/..//evil.example' becomes '//evil.example'). Absolute URLs never start with '/'.
 */
export function safeNextPath(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > safePathMaxLength) return null;
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return null;
  if (controlCharacters.test(raw)) return null;
  const resolved = new URL(raw, probeOrigin);
  if (resolved.origin !== probeOrigin || resolved.pathname.startsWith('//')) return null;
  return raw;
}
