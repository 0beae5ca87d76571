import { v7 as uuidv7 } from 'uuid';
import { sql, type Kysely } from 'kysely';
import type { AuditKind } from '@qw/contracts';
import type { AuditLogRow, IdentityDatabase } from '../database.ts';

type Db = Kysely<IdentityDatabase>;

/** A device's name may be unknown when its event carries none (it is found when the log is read). */
export type AuditTarget = { kind: 'user' | 'invitation' | 'device' | 'organization'; id: string; name: string | null };

export type AuditInput = {
  orgId: string;
  kind: AuditKind;
  /** When it happened: now, or the event's occurredAt for entries gathered from events. */
  at: Date;
  /** Null: the system (a subscription that ended). */
  actor: { id: string; name: string } | null;
  target: AuditTarget | null;
  /** The person the entry is about besides its actor: the member, or a device's assignee. */
  personId?: string | null;
  details?: Record<string, unknown>;
};

/** Written in the transaction of the change (or of the event's inbox row), never on its own. */
export async function addAuditEntry(db: Db, entry: AuditInput): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      id: uuidv7(),
      org_id: entry.orgId,
      at: entry.at,
      kind: entry.kind,
      actor_id: entry.actor?.id ?? null,
      actor_name: entry.actor?.name ?? null,
      target_kind: entry.target?.kind ?? null,
      target_id: entry.target?.id ?? null,
      target_name: entry.target?.name ?? null,
      person_id: entry.personId ?? null,
      details: JSON.stringify(entry.details ?? {}),
    })
    .execute();
}

/** Newest first, after the cursor's entry; `kind` and `person` (actor or the person concerned) narrow it. */
export function pageAuditLog(
  db: Db,
  query: {
    orgId: string;
    kind?: string | undefined;
    person?: string | undefined;
    before: { at: Date; id: string } | null;
    limit: number;
  },
): Promise<AuditLogRow[]> {
  let select = db.selectFrom('audit_log').selectAll().where('org_id', '=', query.orgId);
  if (query.kind) select = select.where('kind', '=', query.kind);
  const person = query.person;
  if (person) select = select.where((eb) => eb.or([eb('actor_id', '=', person), eb('person_id', '=', person)]));
  const before = query.before;
  if (before) select = select.where(sql<boolean>`(at, id) < (${before.at}::timestamptz, ${before.id}::uuid)`);
  return select.orderBy('at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
}

/** The names the log knows for these devices (from their added and renamed entries), oldest first. */
export function deviceNamings(
  db: Db,
  orgId: string,
  deviceIds: readonly string[],
): Promise<Array<{ target_id: string | null; target_name: string | null; at: Date }>> {
  if (deviceIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('audit_log')
    .select(['target_id', 'target_name', 'at'])
    .where('target_kind', '=', 'device')
    .where('target_id', 'in', [...deviceIds])
    .where('org_id', '=', orgId)
    .where('kind', 'in', ['device.added', 'device.renamed'])
    .orderBy('at', 'asc')
    .execute();
}

/**
 * Which of these people are or ever were members of the organization: a member now, or one whose
 * joining the log recorded (every membership begins with a `member.joined` entry).
 */
export async function everMembers(db: Db, orgId: string, userIds: readonly string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('org_members')
    .select('user_id')
    .where('org_id', '=', orgId)
    .where('user_id', 'in', [...userIds])
    .union(
      db
        .selectFrom('audit_log')
        .select('person_id as user_id')
        .where('org_id', '=', orgId)
        .where('kind', '=', 'member.joined')
        .where('person_id', 'in', [...userIds])
        .$narrowType<{ user_id: string }>(),
    )
    .execute();
  return new Set(rows.map((row) => row.user_id));
}
