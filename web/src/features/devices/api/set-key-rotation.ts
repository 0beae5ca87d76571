import type { KeyRotationDays, RouteAnswer, setKeyRotationRoute } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { devicesKey } from './get-devices';

/** PATCH /api/devices/{id}/key-rotation: a new key every 30 or 90 days, or off (null). */
export function setKeyRotation(input: {
  id: string;
  everyDays: KeyRotationDays | null;
}): Promise<RouteAnswer<typeof setKeyRotationRoute>> {
  return api.patch<RouteAnswer<typeof setKeyRotationRoute>>(`/api/devices/${input.id}/key-rotation`, {
    every_days: input.everyDays,
  });
}

/** Personal and organization lists share the devices key, so both refresh. */
export function useSetKeyRotation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: setKeyRotation,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: devicesKey }),
  });
}
