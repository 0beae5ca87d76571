import type { DeviceView } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { devicesKey } from './get-devices';

/** POST /api/devices {name, platform} → 201 {device}; the keys are made on the server. */
export function createDevice(input: { name: string; platform: string }): Promise<{ device: DeviceView }> {
  return api.post<{ device: DeviceView }>('/api/devices', input);
}

export function useCreateDevice() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: createDevice, onSuccess: () => queryClient.invalidateQueries({ queryKey: devicesKey }) });
}
