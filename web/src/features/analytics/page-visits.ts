import { type CountedPagePath, isCountedPagePath } from '@qw/contracts';
import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router-dom';
import { recordVisit } from './api/record-visit';

/**
 * The page a location counts as for the funnel, or null: only the public pages of
 * `countedPagePaths`, matched the way the router matches them (any letter case, one trailing slash
 * allowed). The query and hash never count; /app, /admin, /login and unknown paths are never reported.
 */
export function countedVisitPath(pathname: string): CountedPagePath | null {
  const trimmed = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  const path = trimmed.toLowerCase();
  return isCountedPagePath(path) ? path : null;
}

/**
 * Reports a view each time the location moves to a counted page (the public layout calls it).
 * Moving within a page (a #section, another query) is not a new view; leaving and coming back is.
 */
export function usePageVisits(): void {
  const { pathname } = useLocation();
  const reported = useRef<CountedPagePath | null>(null);
  useEffect(() => {
    const path = countedVisitPath(pathname);
    // React's development double effects run this twice for one navigation: the ref sends it once.
    if (path === reported.current) return;
    reported.current = path;
    if (path) recordVisit(path);
  }, [pathname]);
}
