import type { retireServerRoute, RouteAnswer } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { adminKey } from './admin-key';

/** POST /api/admin/servers/{id}/retire: credentials revoked, peers gone; refused (409) while devices are on it. */
export function retireServer(id: string) {
  return api.post<RouteAnswer<typeof retireServerRoute>>(`/api/admin/servers/${encodeURIComponent(id)}/retire`);
}

export function useRetireServer() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: retireServer,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKey }),
  });
}
