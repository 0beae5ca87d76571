/**
 * Makes room in a Map whose entries were put in in time order (a Map keeps insertion order) and
 * each hold until `until`: drops those at the front that have expired by `at`, and more of the
 * oldest while the Map holds `max` or more, so one more can go in.
 */
export function dropExpired(entries: Map<string, { until: number }>, at: number, max: number): void {
  for (const [key, entry] of entries) {
    if (entry.until > at && entries.size < max) break;
    entries.delete(key);
  }
}
