import type { requestKeyRoute, RouteAnswer } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { devicesKey } from './get-devices';

/** POST /api/devices/{id}/key (request_wg_key): a new key pair, the server updated, the config emailed. */
export function requestKey(input: { id: string; publicKey?: string }): Promise<{ emailed: boolean }> {
  return api.post<RouteAnswer<typeof requestKeyRoute>>(
    `/api/devices/${input.id}/key`,
    input.publicKey ? { public_key: input.publicKey } : {},
  );
}

export function useRequestKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: requestKey,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: devicesKey }),
  });
}
