import { resolveAccess } from '@qw/contracts';

/** A person as the console's lists and pages read them: the profile's role and type, the admin list's entry. */
export type ListedPerson = {
  role: string | null;
  account_type: string | null;
  list_is_admin: boolean | null;
  list_role: string | null;
  email_verified_at: Date | string | null;
};

/**
 * What a person may do, as the console shows it (admin or not, role): the same rule sign-in uses,
 * read from the row, with no second factor in play (the console shows rights, it grants none).
 */
export function listedAccess(row: ListedPerson) {
  return resolveAccess({
    profileRole: row.role,
    accountType: row.account_type,
    adminEntry: row.list_is_admin === null ? null : { is_admin: row.list_is_admin, role: row.list_role ?? null },
    emailVerified: row.email_verified_at !== null,
    twoFactorEnabled: false,
    twoFactorPassed: false,
  });
}
