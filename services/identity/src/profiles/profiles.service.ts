import type { Kysely } from 'kysely';
import {
  AppError,
  defaultRole,
  profileUpdated,
  requireUserId,
  type Caller,
  type Me,
  type Profile,
} from '@qw/contracts';
import { addToOutbox } from '@qw/platform/bus';
import type { IdentityDatabase } from '../database.ts';
import * as repo from '../accounts/accounts.repository.ts';
import { readAccess } from '../accounts/read-authority.ts';
import { accountSuspensionOf } from '../admin/account-suspension-rules.ts';
import { changedProfileFields, profileFields, toProfile, type ProfileFields } from './profile-rules.ts';

/** The signed-in person's own page: who they are, their rights now, and the profile they edit. */
export class ProfilesService {
  constructor(private readonly deps: { db: Kysely<IdentityDatabase> }) {}

  async me(caller: Caller): Promise<Me> {
    const { db } = this.deps;
    const userId = requireUserId(caller);
    const user = await repo.findUserById(db, userId);
    const profile = await repo.findProfile(db, userId);
    if (!user || !profile) throw new AppError('not_signed_in', 'Not signed in');
    // The same reading as adminStatus: the session's own claim, confirmed by the database now.
    const read = await readAccess(db, userId, { twoFactorPassed: caller.isAdmin });
    return {
      user: { id: user.id, email: user.email, created_at: new Date(user.created_at).toISOString() },
      profile: toProfile(profile),
      role: read?.access.role ?? defaultRole,
      is_admin: caller.isAdmin && read?.access.isAdmin === true,
      email_verified: user.email_verified_at !== null,
      mfa_enabled: read?.facts.two_factor === true,
      org_member: await repo.isOrgMember(db, user.id),
      account_suspension: accountSuspensionOf(user),
    };
  }

  async updateProfile(caller: Caller, input: ProfileFields): Promise<Profile> {
    const userId = requireUserId(caller);
    const fields = profileFields(input);
    return this.deps.db.transaction().execute(async (tx) => {
      const before = await repo.findProfile(tx, userId);
      if (!before) throw new AppError('not_signed_in', 'Not signed in');
      const changed = changedProfileFields(before, fields);
      if (changed.length === 0) return toProfile(before);
      const after = await repo.updateProfileFields(tx, userId, fields);
      await addToOutbox(tx, profileUpdated, { userId, fields: changed });
      return toProfile(after!);
    });
  }
}
