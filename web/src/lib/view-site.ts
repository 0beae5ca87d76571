/**
 * The "View Site" visit of the signed-in person in this tab (see `viewingSiteAfter` in redirects.ts),
 * kept in sessionStorage under their user id so that a reload keeps it and another account does not
 * inherit it. Storage that cannot be used (private modes) just means the visit lasts one page.
 */
const storageKey = 'qw.view-site';

export function readViewSite(userId: string | undefined): boolean {
  if (!userId) return false;
  try {
    return window.sessionStorage.getItem(storageKey) === userId;
  } catch {
    return false;
  }
}

export function writeViewSite(userId: string | undefined, viewing: boolean): void {
  try {
    if (viewing && userId) window.sessionStorage.setItem(storageKey, userId);
    else window.sessionStorage.removeItem(storageKey);
  } catch {
    // Nothing to keep it in: the visit lasts as long as the page.
  }
}
