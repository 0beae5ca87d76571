import type {
  endPersonSessionsRoute,
  refundPersonLatestRoute,
  resendPersonVerificationRoute,
  RouteAnswer,
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
