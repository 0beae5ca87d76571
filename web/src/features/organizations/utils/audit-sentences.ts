import {
  blockingCategories,
  blockingCategoryLabel,
  planDisplayName,
  platformLabels,
  splitTunnelLabel,
  type AuditEntry as ContractAuditEntry,
} from '@qw/contracts';
import { roleLabel } from './organization-rules';

/** One entry of the audit log, as GET /api/orgs/{id}/audit answers it. */
type Entry = Pick<ContractAuditEntry, 'at' | 'kind' | 'actor' | 'target' | 'details'>;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);

/** A privacy change's details (issue #25) in words: "blocking Ads and Malware; All traffic except local networks". */
function privacyText(details: Record<string, unknown>): string {
  const on = Array.isArray(details.blocking) ? details.blocking : [];
  const names = blockingCategories.filter((c) => on.includes(c)).map((c) => blockingCategoryLabel[c]);
  const blocking =
    names.length === 0
      ? 'no blocking'
      : `blocking ${names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`}`;
  const split = text(details.split_tunnel);
  const label = split ? (splitTunnelLabel as Record<string, string>)[split] : undefined;
  return label ? `${blocking}; ${label.toLowerCase()}` : blocking;
}

function platformText(value: unknown): string | undefined {
  const platform = text(value);
  return platform ? ((platformLabels as Record<string, string>)[platform] ?? platform) : undefined;
}

/** A day as the reader's browser writes it ('1 Dec', 'Dec 1'); `locale` for tests. */
export function readerDay(iso: string, locale?: string): string {
  return new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short' }).format(new Date(iso));
}

/** A moment as the reader's browser writes it, date and time ('25 Nov 2026, 14:05'). */
export function readerDateTime(iso: string, locale?: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
}

/**
 * The audit log read as sentences (issue #26): "Sam added iPhone (iOS)", "Olivia invited
 * jo@example.com as member; the invitation expires 1 Dec". Nobody's name means Quietwire did it
 * (a scheduled key rotation, a plan's end). A kind this page does not know is said plainly.
 */
export function auditSentence(entry: Entry, locale?: string): string {
  const actor = entry.actor?.name ?? 'Quietwire';
  const target = entry.target?.name ?? undefined;
  const details = entry.details ?? {};
  const assignee = text((details.assignee as { name?: unknown } | undefined)?.name);
  const device = target ?? 'a device';
  const forSomeoneElse = assignee && assignee !== actor ? ` for ${assignee}` : '';
  const role = text(details.role);
  switch (entry.kind) {
    case 'member.invited': {
      const expires = text(details.expires_at);
      return `${actor} invited ${target ?? 'someone'}${role ? ` as ${roleLabel(role).toLowerCase()}` : ''}${
        expires ? `; the invitation expires ${readerDay(expires, locale)}` : ''
      }`;
    }
    case 'member.joined':
      return details.via === 'purchase'
        ? `${target ?? actor} bought the plan and became its owner`
        : `${target ?? actor} joined${role ? ` as ${roleLabel(role).toLowerCase()}` : ''}`;
    case 'member.role_changed': {
      const to = text(details.to);
      const from = text(details.from);
      return `${actor} made ${target ?? 'someone'} ${to ? roleLabel(to).toLowerCase() : 'something else'}${
        from ? ` (was ${roleLabel(from).toLowerCase()})` : ''
      }`;
    }
    case 'member.removed':
      return `${actor} removed ${target ?? 'someone'}${role ? ` (${roleLabel(role).toLowerCase()})` : ''}`;
    case 'member.left':
      return `${target ?? actor} left the organization`;
    case 'invitation.revoked':
      return `${actor} revoked the invitation to ${target ?? 'someone'}`;
    case 'device.added': {
      const platform = platformText(details.platform);
      return `${actor} added ${device}${platform ? ` (${platform})` : ''}${forSomeoneElse}`;
    }
    case 'device.renamed':
      return `${actor} renamed a device${forSomeoneElse} to ${device}`;
    case 'device.privacy_changed':
      return `${actor} changed the privacy settings of ${device}${forSomeoneElse}: ${privacyText(details)}`;
    case 'device.suspended':
      return `${actor} suspended ${device}${forSomeoneElse}`;
    case 'device.activated':
      return `${actor} activated ${device}${forSomeoneElse}`;
    case 'device.removed':
      return `${actor} removed ${device}${forSomeoneElse}`;
    case 'device.key_rotated':
      return entry.actor ? `${actor} gave ${device} a new key` : `Quietwire gave ${device} a new key, as scheduled`;
    case 'plan.changed': {
      const from = text(details.from);
      const to = text(details.to);
      return `The plan changed${from ? ` from ${planDisplayName(from)}` : ''}${to ? ` to ${planDisplayName(to)}` : ''}`;
    }
    case 'organization.suspended':
      return details.by === 'operator'
        ? 'Quietwire support suspended the organization'
        : 'The organization was suspended: its plan ended';
    case 'organization.reactivated':
      return details.by === 'operator'
        ? 'Quietwire support reactivated the organization'
        : 'The organization was reactivated';
    default:
      return `${actor}: ${entry.kind}${target ? ` (${target})` : ''}`;
  }
}

/** One CSV field: quoted when it holds a comma, quote or line break; a leading =+-@ is defused for spreadsheets. */
function csvField(value: string): string {
  const safe = /^[=+\-@]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** The entries as CSV (RFC 4180, CRLF): when (UTC, ISO 8601), kind, who, target, what happened. */
export function auditCsv(entries: readonly Entry[]): string {
  const rows = [['When (UTC)', 'Kind', 'Who', 'Target', 'What happened']];
  for (const entry of entries)
    rows.push([
      entry.at,
      entry.kind,
      entry.actor?.name ?? 'Quietwire',
      entry.target?.name ?? '',
      auditSentence(entry, 'en-GB'),
    ]);
  return `${rows.map((row) => row.map(csvField).join(',')).join('\r\n')}\r\n`;
}
