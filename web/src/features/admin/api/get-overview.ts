import type { adminOverviewRoute, RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { adminKey } from './admin-key';

/** GET /api/admin/overview: the four counts and the last 24 hours of traffic, hour by hour. */
export type AdminOverview = RouteAnswer<typeof adminOverviewRoute>;
export const overviewKey = [...adminKey, 'overview'] as const;

export function getOverview(): Promise<AdminOverview> {
  return api.get<AdminOverview>('/api/admin/overview');
}

export function useOverview() {
  return useQuery({ queryKey: overviewKey, queryFn: getOverview, refetchInterval: 60_000 });
}
