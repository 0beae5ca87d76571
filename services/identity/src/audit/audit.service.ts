import type { Kysely } from 'kysely';
import {
  AppError,
  organizationManagerActions,
  auditKinds,
  requireUserId,
  type AuditEntry,
  type AuditKind,
  type Caller,
  type Envelope,
} from '@qw/contracts';
import type { AuditLogRow, IdentityDatabase } from '../database.ts';
import {
  decodeAuditCursor,
  deviceNameAt,
  encodeAuditCursor,
  managerRefusal,
  shownActor,
} from '../organizations/organization-rules.ts';
import { personName, roleOf } from '../organizations/organizations.repository.ts';
import { addAuditEntry, deviceNamings, everMembers, pageAuditLog } from './audit.repository.ts';

type Db = Kysely<IdentityDatabase>;

export const auditPageDefault = 50;

function toEntry(row: AuditLogRow, everMember: (userId: string) => boolean): AuditEntry {
  return {
    id: row.id,
    at: new Date(row.at).toISOString(),
    kind: row.kind,
    actor: shownActor(row, everMember),
    target:
      row.target_kind && row.target_id
        ? { kind: row.target_kind, id: row.target_id, name: row.target_name ?? '' }
        : null,
    details: row.details ?? {},
  };
}

/** Device entries whose event named no device get the device's name at their time. */
async function withDeviceNames(db: Db, orgId: string, rows: AuditLogRow[]): Promise<AuditLogRow[]> {
  const unnamed = rows.filter((row) => row.target_kind === 'device' && row.target_id && row.target_name === null);
  const namings = await deviceNamings(db, orgId, [...new Set(unnamed.map((row) => row.target_id ?? ''))]);
  return rows.map((row) => {
    if (!unnamed.includes(row)) return row;
    const ofDevice = namings
      .filter((naming) => naming.target_id === row.target_id && naming.target_name !== null)
      .map((naming) => ({ name: naming.target_name ?? '', at: naming.at }));
    return { ...row, target_name: deviceNameAt(ofDevice, row.at) ?? 'A device' };
  });
}

function isAuditKind(value: string): value is AuditKind {
  return (auditKinds as readonly string[]).includes(value);
}

/**
 * Owners and admins read their organization's log: newest first, by kind and person, a page at a
 * time; an operator's changes show as Quietwire support (`shownActor`).
 */
export async function readAuditLog(
  db: Db,
  caller: Caller,
  query: {
    org_id: string;
    kind?: string | undefined;
    person?: string | undefined;
    before?: string | undefined;
    limit?: number | undefined;
  },
): Promise<{ entries: AuditEntry[]; next: string | null }> {
  const userId = requireUserId(caller);
  const refusal = managerRefusal(await roleOf(db, query.org_id, userId), organizationManagerActions.readAuditLog);
  if (refusal) throw refusal;
  if (query.kind !== undefined && !isAuditKind(query.kind))
    throw new AppError('validation_failed', `There is no kind of entry called ${query.kind.slice(0, 64)}.`, {
      field: 'kind',
    });
  const before = query.before === undefined ? null : decodeAuditCursor(query.before);
  if (query.before !== undefined && !before)
    throw new AppError('validation_failed', 'This page link is not valid. Start again from the first page.', {
      field: 'before',
    });
  const limit = query.limit ?? auditPageDefault;
  const rows = await pageAuditLog(db, {
    orgId: query.org_id,
    kind: query.kind,
    person: query.person,
    before,
    limit: limit + 1,
  });
  const page = await withDeviceNames(db, query.org_id, rows.slice(0, limit));
  const last = page.at(-1);
  const actors = [...new Set(page.flatMap((row) => (row.actor_id ? [row.actor_id] : [])))];
  const members = await everMembers(db, query.org_id, actors);
  return {
    entries: page.map((row) => toEntry(row, (userId) => members.has(userId))),
    next: rows.length > limit && last ? encodeAuditCursor({ at: new Date(last.at), id: last.id }) : null,
  };
}

/** The device events of provisioning that the log keeps, by the kind they become. */
type DeviceEventData = {
  deviceId: string;
  userId: string;
  orgId: string | null;
  actorId?: string | null | undefined;
  name?: string;
  platform?: string;
  reason?: string;
  /** A privacy change (issue #25): the blocking categories on and the split-tunnel preset. */
  blocking?: string[];
  splitTunnel?: string;
};

/**
 * An organization device changed (provisioning's event): who did it (its actorId; null is the
 * system), the device with its name then, and its assignee. Personal devices are not logged.
 */
export async function recordDeviceEvent(tx: Db, kind: AuditKind, event: Envelope<DeviceEventData>): Promise<void> {
  const { deviceId, userId, orgId, actorId, name, platform, reason, blocking, splitTunnel } = event.data;
  if (!orgId) return;
  const actorName = actorId ? await personName(tx, actorId) : null;
  await addAuditEntry(tx, {
    orgId,
    kind,
    at: new Date(event.occurredAt),
    actor: actorId ? { id: actorId, name: actorName ?? 'A former user' } : null,
    // Events other than added and renamed carry no name: the log finds it when it is read.
    target: { kind: 'device', id: deviceId, name: name ?? null },
    personId: userId,
    details: {
      assignee: { user_id: userId, name: (await personName(tx, userId)) ?? 'A former user' },
      ...(platform ? { platform } : {}),
      ...(reason ? { reason } : {}),
      ...(blocking ? { blocking } : {}),
      ...(splitTunnel ? { split_tunnel: splitTunnel } : {}),
    },
  });
}
