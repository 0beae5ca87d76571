import type { RouteAnswer, RouteBody, updateDeviceRoute } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { devicesKey } from './get-devices';

/** PATCH /api/devices/{id} {name} to rename, {is_active} to suspend or activate. */
export function updateDevice(
  input: { id: string } & RouteBody<typeof updateDeviceRoute>,
): Promise<RouteAnswer<typeof updateDeviceRoute>> {
  const { id, ...changes } = input;
  return api.patch<RouteAnswer<typeof updateDeviceRoute>>(`/api/devices/${id}`, changes);
}

export function useUpdateDevice() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateDevice,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: devicesKey }),
  });
}
