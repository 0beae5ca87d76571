import pg from 'pg';

/** Postgres's type id of `timestamptz`. */
const timestamptzOid = 1184;
const fallback = pg.types.getTypeParser(timestamptzOid, 'text') as (text: string) => Date;

/** The number in `count` ASCII digits of `text` from `from`, or -1 when one is not a digit. */
function digits(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * A `timestamptz` as Postgres writes it in UTC (`2026-11-30 21:04:19.123456+00`), read with a
 * few character codes instead of node-postgres's regular expressions (issue #24: parsing the
 * dates of a page of devices was 4–6% of the API's CPU). Anything else (another time zone's
 * offset, a year before 100 or after 9999, BC, infinity) goes to node-postgres's own parser, so
 * the answer is always the same Date; milliseconds are truncated, as there.
 */
export function parseTimestamptz(text: string): Date {
  const length = text.length;
  if (
    length < 22 ||
    length > 29 ||
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 32 || // space
    text.charCodeAt(13) !== 58 || // :
    text.charCodeAt(16) !== 58 ||
    text.charCodeAt(length - 3) !== 43 || // +
    text.charCodeAt(length - 2) !== 48 || // 0
    text.charCodeAt(length - 1) !== 48
  )
    return fallback(text);
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  if (year < 100 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return fallback(text);
  let ms = 0;
  if (length > 22) {
    // A fraction of one to six digits after the point: its first three are the milliseconds.
    const fraction = length - 23;
    if (text.charCodeAt(19) !== 46 || fraction < 1) return fallback(text);
    const leading = digits(text, 20, Math.min(fraction, 3));
    if (leading < 0 || (fraction > 3 && digits(text, 23, fraction - 3) < 0)) return fallback(text);
    ms = fraction >= 3 ? leading : leading * (fraction === 1 ? 100 : 10);
  }
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms));
}

/** node-postgres's parsers, with `parseTimestamptz` for `timestamptz` (a pool's `types`). */
export const fastTimestampTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === timestamptzOid && format !== 'binary') return parseTimestamptz;
    return pg.types.getTypeParser(oid, format);
  },
};
