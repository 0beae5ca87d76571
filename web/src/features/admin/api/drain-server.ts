import type { drainServerRoute, RouteAnswer } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { adminKey } from './admin-key';

/** POST /api/admin/servers/{id}/drain {draining}: no new placements on the node (or open it again). */
export function drainServer({ id, draining }: { id: string; draining: boolean }) {
  return api.post<RouteAnswer<typeof drainServerRoute>>(`/api/admin/servers/${encodeURIComponent(id)}/drain`, {
    draining,
  });
}

export function useDrainServer() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: drainServer,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKey }),
  });
}
