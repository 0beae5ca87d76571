import type { adminDeviceActionRoute, RouteAnswer, RouteBody } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { adminKey } from './admin-key';

/**
 * Spec §7 POST /api/admin-device {action, deviceId}: activate, suspend or revoke_keys. Spec §4: the
 * list is reloaded after the change (everything under the console's key: devices, overview, audit).
 */
export type AdminDeviceAction = RouteBody<typeof adminDeviceActionRoute>;

export function runDeviceAction(body: AdminDeviceAction): Promise<RouteAnswer<typeof adminDeviceActionRoute>> {
  return api.post('/api/admin-device', body);
}

export function useDeviceAction() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: runDeviceAction,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKey }),
  });
}
