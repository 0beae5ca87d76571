import type {
  endPersonSessionsRoute,
  reactivatePersonRoute,
  refundPersonLatestRoute,
  resendPersonVerificationRoute,
  RouteAnswer,
  suspendPersonRoute,
} from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { adminKey } from './admin-key';

/**
 * An operator's action on one person (issue #26): POST /api/admin/users/{id}/end-sessions or
 * /resend-verification or /refund-latest. Each changes the person's page and the audit, so the console's queries
 * are asked again.
 */
export type PersonAction = 'end-sessions' | 'resend-verification' | 'refund-latest';
type Answers = {
  'end-sessions': RouteAnswer<typeof endPersonSessionsRoute>;
  'resend-verification': RouteAnswer<typeof resendPersonVerificationRoute>;
  'refund-latest': RouteAnswer<typeof refundPersonLatestRoute>;
};

export function personAction<A extends PersonAction>(id: string, action: A): Promise<Answers[A]> {
  return api.post<Answers[A]>(`/api/admin/users/${encodeURIComponent(id)}/${action}`);
}

export function usePersonAction<A extends PersonAction>(id: string, action: A) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => personAction(id, action),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKey }),
  });
}

export type PersonSuspensionAnswer = RouteAnswer<typeof suspendPersonRoute> | RouteAnswer<typeof reactivatePersonRoute>;

/**
 * The operator suspends the person's account with a reason they read (POST .../suspend), or lifts
 * it (POST .../reactivate): the person's page, the devices and the audit change, so the console's
 * queries are asked again.
 */
export function usePersonSuspension(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (change: { suspend: true; reason: string } | { suspend: false }) =>
      change.suspend
        ? api.post<PersonSuspensionAnswer>(`/api/admin/users/${encodeURIComponent(id)}/suspend`, {
            reason: change.reason,
          })
        : api.post<PersonSuspensionAnswer>(`/api/admin/users/${encodeURIComponent(id)}/reactivate`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKey }),
  });
}
