import type { RouteAnswer, RouteBody, updateProfileRoute } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { meKey } from '../../../lib/auth/api/get-me';

/** PATCH /api/me/profile {full_name?, avatar_url?} → profile; 400 validation_failed with the reason. Invalidates /api/me. */
export type ProfileChanges = RouteBody<typeof updateProfileRoute>;

export const updateProfileKey = [...meKey, 'update-profile'] as const;

export function updateProfile(changes: ProfileChanges): Promise<RouteAnswer<typeof updateProfileRoute>> {
  return api.patch<RouteAnswer<typeof updateProfileRoute>>('/api/me/profile', changes);
}

export function useUpdateProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: updateProfileKey,
    mutationFn: updateProfile,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: meKey }),
  });
}
