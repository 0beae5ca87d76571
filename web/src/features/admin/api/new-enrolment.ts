import type { newEnrolmentRoute, RouteAnswer } from '@qw/contracts';
import { useMutation } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** POST /api/admin/servers/{id}/enrolment: a new one-time token for a pending server (earlier ones stop working). */
export function newEnrolment(id: string): Promise<RouteAnswer<typeof newEnrolmentRoute>> {
  return api.post<RouteAnswer<typeof newEnrolmentRoute>>(`/api/admin/servers/${encodeURIComponent(id)}/enrolment`);
}

/** Like Add server's answer, the token is kept nowhere but the dialog that shows it (`gcTime: 0`). */
export function useNewEnrolment() {
  return useMutation({ mutationFn: newEnrolment, gcTime: 0 });
}
