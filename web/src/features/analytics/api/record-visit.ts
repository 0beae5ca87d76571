import type { CountedPagePath, recordVisitRoute, RouteBody } from '@qw/contracts';
import { api } from '../../../lib/api-client';

/**
 * POST /api/visits {path} → 204: one view of a public page, for the funnel. Fire and forget: it
 * outlives a navigation away (keepalive), carries no cookie, token or identifier (the path is all
 * the server keeps), and a failure is nobody's business but the funnel's, so it is dropped.
 */
export function recordVisit(path: CountedPagePath): void {
  const body: RouteBody<typeof recordVisitRoute> = { path };
  api.post<void>('/api/visits', body, { skipAuth: true, credentials: 'omit', keepalive: true }).catch(() => undefined);
}
