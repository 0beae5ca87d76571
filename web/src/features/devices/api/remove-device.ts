import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { devicesKey } from './get-devices';

/** DELETE /api/devices/{id}: the peer leaves its server and the address is released. */
export function removeDevice(id: string): Promise<unknown> {
  return api.delete(`/api/devices/${id}`);
}

export function useRemoveDevice() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: removeDevice,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: devicesKey }),
  });
}
