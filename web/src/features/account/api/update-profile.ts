import type { Profile } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { meKey } from '../../../lib/auth/api/get-me';

/** PATCH /api/me/profile {full_name?, avatar_url?} → profile; 400 validation_failed with the reason. Invalidates /api/me. */
export type ProfileChanges = { full_name?: string | null; avatar_url?: string | null };

export const updateProfileKey = [...meKey, 'update-profile'] as const;

export function updateProfile(changes: ProfileChanges): Promise<Profile> {
  return api.patch<Profile>('/api/me/profile', changes);
}

export function useUpdateProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: updateProfileKey,
    mutationFn: updateProfile,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: meKey }),
  });
}
