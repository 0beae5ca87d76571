import type { changeDeviceRegionRoute, RouteAnswer, RouteBody } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { devicesKey } from './get-devices';

/**
 * POST /api/devices/{id}/region {region, country?} → {device, moved}. `moved`: the device has a
 * new server (new Endpoint and server key; its config must be downloaded again). A 409 says no
 * server of that region has room; nothing changed.
 */
export function changeDeviceRegion(
  input: { id: string } & RouteBody<typeof changeDeviceRegionRoute>,
): Promise<RouteAnswer<typeof changeDeviceRegionRoute>> {
  const { id, ...body } = input;
  return api.post<RouteAnswer<typeof changeDeviceRegionRoute>>(`/api/devices/${encodeURIComponent(id)}/region`, body);
}

export function useChangeDeviceRegion() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: changeDeviceRegion,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: devicesKey }),
  });
}
