import type { rebuildProjectionRoute, RouteAnswer } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { projectionKey, type ProjectionStatus } from './get-projection';

/**
 * POST /api/admin/analytics/rebuild → 202 with the projection status, the rebuild under way in
 * `building`. The live figures stay until the rebuild has caught up (409 while one already runs).
 */
export type RebuildAnswer = RouteAnswer<typeof rebuildProjectionRoute, 202>;

export function rebuildProjection(): Promise<RebuildAnswer> {
  return api.post<RebuildAnswer>('/api/admin/analytics/rebuild');
}

export function useRebuildProjection() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: [...projectionKey, 'rebuild'],
    mutationFn: rebuildProjection,
    onSuccess: (status: ProjectionStatus) => queryClient.setQueryData(projectionKey, status),
  });
}
