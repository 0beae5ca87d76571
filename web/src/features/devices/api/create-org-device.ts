import type { createOrgDeviceRoute, RouteAnswer, RouteBody } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { devicesKey } from './get-devices';

/**
 * POST /api/orgs/{id}/devices {name, platform, assignee_id} → 201 {device}. Refused, with nothing
 * written, at 5 devices for the assignee, at the plan's device count, or while Suspended.
 */
export function createOrgDevice(
  input: { orgId: string } & RouteBody<typeof createOrgDeviceRoute>,
): Promise<RouteAnswer<typeof createOrgDeviceRoute, 201>> {
  const { orgId, ...body } = input;
  return api.post<RouteAnswer<typeof createOrgDeviceRoute, 201>>(
    `/api/orgs/${encodeURIComponent(orgId)}/devices`,
    body,
  );
}

export function useCreateOrgDevice() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createOrgDevice,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: devicesKey }),
  });
}
