import type { Authority } from '@qw/contracts';

/** Whom identity is asked about: the person, and the session their access token belongs to. */
export type AuthorityQuestion = { user_id: string; session_id?: string };

/** How old an answer may be: authority changes take effect within a second everywhere. */
export const authorityMaxAgeMs = 1_000;

type Entry = { askedAt: number; answer: Promise<Authority> };

/**
 * Identity's answer about a person's rights, kept per person and access token for at most
 * `authorityMaxAgeMs` (counted from when the question was asked, so the answer never says less about the
 * present than that). Per token too, because a new token follows the person's own changes (the
 * address just verified, rights just granted at a refresh): its first request asks again instead
 * of reading what the previous token's request was told a moment before. One question per key at a
 * time: requests arriving while it is asked share its answer. A failed question is forgotten at
 * once, so the next request asks again.
 */
export class AuthorityCache {
  private readonly entries = new Map<string, Entry>();
  /** Answers remembered at once; the least recently used go first. */
  private readonly limit: number;
  private readonly now: () => number;

  constructor(
    private readonly ask: (question: AuthorityQuestion) => Promise<Authority>,
    options: { size?: number; now?: () => number } = {},
  ) {
    this.limit = options.size ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * `token` tells one access token of the person from another (its signature will do); `fresh`
   * asks identity again whatever is remembered (the answer replaces it, for the requests after).
   */
  get(question: AuthorityQuestion, token = '', options: { fresh?: boolean } = {}): Promise<Authority> {
    const key = `${question.user_id} ${question.session_id ?? ''} ${token}`;
    const now = this.now();
    const found = this.entries.get(key);
    this.entries.delete(key);
    if (found && !options.fresh && now - found.askedAt < authorityMaxAgeMs) {
      // Map order is the recency order: a hit moves to the end.
      this.entries.set(key, found);
      return found.answer;
    }
    const entry: Entry = { askedAt: now, answer: this.ask(question) };
    entry.answer.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    this.entries.set(key, entry);
    while (this.entries.size > this.limit) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    return entry.answer;
  }

  /** Answers remembered now. */
  get size(): number {
    return this.entries.size;
  }
}
