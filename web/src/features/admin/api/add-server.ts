import type { addServerRoute, RouteAnswer } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { AddServerBody } from '../utils/add-server-rules';
import { adminKey } from './admin-key';

/** POST /api/admin/servers: the new (pending) server and its one-time enrolment. */
export type AddedServer = RouteAnswer<typeof addServerRoute, 201>;
export type ServerEnrolment = AddedServer['enrolment'];

export function addServer(body: AddServerBody): Promise<AddedServer> {
  return api.post<AddedServer>('/api/admin/servers', body);
}

/**
 * The answer carries the enrolment token, which is shown once: the mutation is dropped from the
 * cache as soon as nothing observes it (`gcTime: 0`), and the page keeps the token only while its
 * dialog is open.
 */
export function useAddServer() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: addServer,
    gcTime: 0,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKey }),
  });
}
