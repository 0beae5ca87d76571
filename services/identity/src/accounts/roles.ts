export type AdminEntry = { is_admin: boolean; role: string | null } | undefined;

/**
 * Spec §4: the profile role is used; if it is absent, an admin_emails entry with is_admin true
 * or role admin yields admin; otherwise the default role, client.
 */
export function resolveRole(profileRole: string | null | undefined, adminEntry: AdminEntry): string {
  if (profileRole) return profileRole;
  if (adminEntry && (adminEntry.is_admin || adminEntry.role === 'admin')) return 'admin';
  return 'client';
}

/** Spec §6: a platform admin is in the admin list, or has role or account type admin. */
export function isPlatformAdmin(profile: { role: string | null; account_type: string }, adminEntry: AdminEntry): boolean {
  if (adminEntry && (adminEntry.is_admin || adminEntry.role === 'admin')) return true;
  return profile.role === 'admin' || profile.account_type === 'admin';
}
