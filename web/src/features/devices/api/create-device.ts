import type { createDeviceRoute, RouteAnswer, RouteBody } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { devicesKey } from './get-devices';

/** POST /api/devices {name, platform} → 201 {device}; the keys are made on the server. */
export function createDevice(
  input: RouteBody<typeof createDeviceRoute>,
): Promise<RouteAnswer<typeof createDeviceRoute, 201>> {
  return api.post<RouteAnswer<typeof createDeviceRoute, 201>>('/api/devices', input);
}

export function useCreateDevice() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createDevice,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: devicesKey }),
  });
}
