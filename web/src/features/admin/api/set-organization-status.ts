import type { RouteAnswer, suspendOrganizationRoute } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { adminKey } from './admin-key';

/**
 * POST /api/admin/organizations/{id}/suspend or /reactivate. Both change what the devices list,
 * the overview and the audit show, so everything under the console's key is asked again.
 */
export type OrganizationStatusChange =
  | { id: string; action: 'suspend'; reason: string }
  | { id: string; action: 'reactivate' };

export function setOrganizationStatus(change: OrganizationStatusChange) {
  return api.post<RouteAnswer<typeof suspendOrganizationRoute>>(
    `/api/admin/organizations/${encodeURIComponent(change.id)}/${change.action}`,
    change.action === 'suspend' ? { reason: change.reason } : undefined,
  );
}

export function useSetOrganizationStatus() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: setOrganizationStatus,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKey }),
  });
}
