import type { RouteAnswer, suspendOrganizationRoute } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { adminKey } from './admin-key';

/**
 * POST /api/admin/organizations/{id}/suspend or /reactivate. Both change what the devices list,
 * the overview and the audit show, so everything under the console's key is asked again.
 */
export type OrganizationStatusChange = { id: string; action: 'suspend' | 'reactivate' };

export function setOrganizationStatus({ id, action }: OrganizationStatusChange) {
  return api.post<RouteAnswer<typeof suspendOrganizationRoute>>(
    `/api/admin/organizations/${encodeURIComponent(id)}/${action}`,
  );
}

export function useSetOrganizationStatus() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: setOrganizationStatus,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKey }),
  });
}
