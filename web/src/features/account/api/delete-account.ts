import type { deleteAccountRoute, RouteAnswer } from '@qw/contracts';
import { useMutation } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { meKey } from '../../../lib/auth/api/get-me';

/**
 * POST /api/me/delete {password} → {deleted_at}; 400 validation_failed for a wrong password; 409
 * conflict for the last owner of an organization others still need (the message says what to do).
 */
export const deleteAccountKey = [...meKey, 'delete'] as const;

export function deleteAccount(password: string): Promise<RouteAnswer<typeof deleteAccountRoute>> {
  return api.post<RouteAnswer<typeof deleteAccountRoute>>('/api/me/delete', { password });
}

export function useDeleteAccount() {
  return useMutation({ mutationKey: deleteAccountKey, mutationFn: deleteAccount });
}
