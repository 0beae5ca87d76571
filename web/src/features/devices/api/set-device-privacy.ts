import type { DevicePrivacyInput, RouteAnswer, setDevicePrivacyRoute } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { devicesKey } from './get-devices';

/** PATCH /api/devices/{id}/privacy: content blocking and split tunnel; `config_changed` when the file did. */
export function setDevicePrivacy(
  input: { id: string } & DevicePrivacyInput,
): Promise<RouteAnswer<typeof setDevicePrivacyRoute>> {
  const { id, ...body } = input;
  return api.patch<RouteAnswer<typeof setDevicePrivacyRoute>>(`/api/devices/${id}/privacy`, body);
}

/** Personal and organization lists share the devices key, so both refresh. */
export function useSetDevicePrivacy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: setDevicePrivacy,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: devicesKey }),
  });
}
