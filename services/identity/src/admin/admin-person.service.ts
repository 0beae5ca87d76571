import type { Kysely } from 'kysely';
import { AppError, resolveAccess, type AdminPersonIdentity, type Caller } from '@qw/contracts';
import type { IdentityDatabase } from '../database.ts';
import * as repo from './admin-person.repository.ts';
import { requireOperator } from './operator.ts';

type Db = Kysely<IdentityDatabase>;

const iso = (value: Date | string) => new Date(value).toISOString();
export const personNotFound = () => new AppError('not_found', 'No account has this id.');

/**
 * One person as the operator console's page shows them (issue #26): identity's part (profile,
 * sessions, organizations with roles, the audit about them). Platform admins only, decided again
 * from the database at the time of the request.
 */
export class AdminPersonService {
  constructor(private readonly db: Db) {}

  async person(caller: Caller, userId: string): Promise<AdminPersonIdentity> {
    await requireOperator(this.db, caller);
    const row = await repo.findPerson(this.db, userId);
    if (!row) throw personNotFound();
    const [sessions, organizations, activity, actions] = await Promise.all([
      repo.sessionsOf(this.db, userId),
      repo.membershipsOf(this.db, userId),
      repo.activityAbout(this.db, userId),
      repo.operatorActionsOn(this.db, userId),
    ]);
    const access = resolveAccess({
      profileRole: row.role,
      accountType: row.account_type,
      adminEntry: row.list_is_admin === null ? null : { is_admin: row.list_is_admin, role: row.list_role ?? null },
      emailVerified: row.email_verified_at !== null,
      twoFactorEnabled: false,
      twoFactorPassed: false,
    });
    return {
      profile: {
        id: row.id,
        email: row.email,
        full_name: row.full_name,
        email_verified: row.email_verified_at !== null,
        email_verified_at: row.email_verified_at ? iso(row.email_verified_at) : null,
        created_at: iso(row.created_at),
        account_type: row.account_type,
        role: access.role,
        is_admin: access.isAdmin,
        two_factor: row.two_factor === true,
      },
      sessions: { active: sessions.active, last_used_at: sessions.lastUsedAt ? iso(sessions.lastUsedAt) : null },
      organizations: organizations.map((m) => ({ id: m.id, name: m.name, role: m.role, joined_at: iso(m.created_at) })),
      // The operator reads names as written: an operator's change is not hidden behind "Quietwire support" here.
      activity: activity.map((entry) => ({
        id: entry.id,
        at: iso(entry.at),
        kind: entry.kind,
        actor:
          entry.actor_id || entry.actor_name
            ? { user_id: entry.actor_id, name: entry.actor_name ?? 'A former user' }
            : null,
        target:
          entry.target_kind && entry.target_id
            ? { kind: entry.target_kind, id: entry.target_id, name: entry.target_name ?? '' }
            : null,
        details: entry.details ?? {},
        organization: { id: entry.org_id, name: entry.org_name },
      })),
      operator_actions: actions.map((entry) => ({
        id: entry.id,
        at: iso(entry.at),
        actor_id: entry.actor_id,
        actor_email: entry.actor_email,
        kind: entry.kind,
        target: entry.target,
        details: entry.details,
      })),
    };
  }
}
