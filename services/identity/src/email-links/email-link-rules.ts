export const verificationLinkHours = 24;
export const resetLinkMinutes = 60;
/** The "Choose a password" step after a first verification. */
export const setPasswordMinutes = 15;
/** A verification link opened again (410 `link_used`); the auth callback page shows the same words. */
export const verificationLinkUsedMessage =
  'This verification link has already been used. Sign in, or request a new link.';

export type LinkState = 'usable' | 'used' | 'expired';

/**
 * What a mailed link's token can still do. A used one says so even once expired: its refusal
 * names the use ("already used", "already chosen"), which tells its holder more than the time.
 */
export function linkState(
  row: { used_at: Date | string | null; expires_at: Date | string },
  now: number = Date.now(),
): LinkState {
  if (row.used_at) return 'used';
  return new Date(row.expires_at).getTime() <= now ? 'expired' : 'usable';
}

/** A link's address on the public site, with its token in the query. */
export function linkUrl(publicUrl: string, path: string, query: Record<string, string>): string {
  const url = new URL(path, publicUrl);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  return url.toString();
}
