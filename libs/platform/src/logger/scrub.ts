/**
 * Removes personal data and secrets from anything about to be logged: values under sensitive
 * keys are replaced whole, and e-mail addresses, IP addresses, bearer tokens, JWTs and WireGuard
 * keys are masked inside any string, at any depth.
 */
const sensitiveKey =
  /pass(word|phrase)?|secret|token|authori[sz]ation|cookie|private.?key|public.?key|preshared|api.?key|^key$|e-?mail|^ip$|ip.?addr|remote.?addr|^address(es)?$|endpoint|x-forwarded-for|x-real-ip|card/i;

const patterns: Array<[RegExp, string]> = [
  [/\beyJ[\w-]+\.[\w-]+\.[\w-]*/g, '[jwt]'],
  [/\b(bearer)\s+[\w.~+/=-]+/gi, '$1 [token]'],
  [/[\w.!#$%&'*+/=?^`{|}~-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+/gi, '[email]'],
  [/(?<![\w.])(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}(?:\/\d{1,2})?(?![\w.])/g, '[ip]'],
  [/(?<![\w:])(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}(?![\w:])/gi, '[ip]'],
  [
    /(?<![\w:])(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*)?::(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*)?(?:\/\d{1,3})?(?![\w:])/gi,
    '[ip]',
  ],
  [/(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=(?![A-Za-z0-9+/=])/g, '[key]'],
];

export function scrubString(value: string): string {
  let out = value;
  for (const [pattern, replacement] of patterns) out = out.replace(pattern, replacement);
  // "::" alone (e.g. in a message about an empty IPv6 prefix) is not an address worth masking.
  return out;
}

export function scrub(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return scrubString(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 8) return '[depth]';
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  if (value instanceof Error) {
    const out: Record<string, unknown> = { type: value.name, message: scrubString(value.message) };
    if (value.stack) out.stack = scrubString(value.stack);
    for (const [k, v] of Object.entries(value))
      out[k] = sensitiveKey.test(k) ? '[redacted]' : scrub(v, depth + 1, seen);
    return out;
  }
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1, seen));
  if (value instanceof Date) return value;
  if (Buffer.isBuffer(value)) return `[${value.length} bytes]`;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = sensitiveKey.test(k) && v !== null && v !== undefined ? '[redacted]' : scrub(v, depth + 1, seen);
  }
  return out;
}
