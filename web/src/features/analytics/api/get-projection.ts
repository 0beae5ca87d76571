import type { projectionStatusRoute, RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { analyticsKey } from './analytics-key';

/** GET /api/admin/analytics/projection: the live projection the figures come from, and a rebuild under way. */
export type ProjectionStatus = RouteAnswer<typeof projectionStatusRoute>;

export const projectionKey = [...analyticsKey, 'projection'] as const;
/** How often the page asks again while a rebuild runs. */
export const rebuildPollMs = 5_000;

export function getProjection(): Promise<ProjectionStatus> {
  return api.get<ProjectionStatus>('/api/admin/analytics/projection');
}

export function useProjection() {
  return useQuery({
    queryKey: projectionKey,
    queryFn: getProjection,
    refetchInterval: (query) => (query.state.data?.building ? rebuildPollMs : false),
  });
}
