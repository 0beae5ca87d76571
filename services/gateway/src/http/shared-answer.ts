/**
 * One answer shared by every request for `seconds`: the first request after it expires asks
 * again, requests meanwhile share the same promise, and a failed answer is not kept (the next
 * request asks again). For public answers every visitor gets alike (the server list, the egress
 * addresses), so a crowd asks the owning service once per period.
 */
export function sharedAnswer<T>(seconds: number, ask: () => Promise<T>): () => Promise<T> {
  let cached: { until: number; answer: Promise<T> } | undefined;
  return () => {
    const now = Date.now();
    if (cached && cached.until > now) return cached.answer;
    const entry = { until: now + seconds * 1000, answer: ask() };
    cached = entry;
    entry.answer.catch(() => {
      if (cached === entry) cached = undefined;
    });
    return entry.answer;
  };
}
