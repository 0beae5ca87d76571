import type { AdminAuditEntry, AuditEntry } from '@qw/contracts';
import { auditSentence } from '../../organizations/utils/audit-sentences';
import { operatorAuditSentence } from './operator-audit-sentences';

/** One line of a person's audit on their console page: when, where it was recorded, what happened. */
export type PersonAuditLine = { id: string; at: string; where: string; sentence: string };

/**
 * A person's audit as the console's page reads it (issue #26): the organizations' entries they did
 * or that are about them (as the organization's Activity says them) and the operators' actions on
 * them (as the operators' audit says them), in one list, newest first.
 */
export function personAuditLines(
  activity: ReadonlyArray<AuditEntry & { organization: { name: string } }>,
  operatorActions: readonly AdminAuditEntry[],
  locale?: string,
): PersonAuditLine[] {
  const lines = [
    ...activity.map((entry) => ({
      id: entry.id,
      at: entry.at,
      where: entry.organization.name,
      sentence: auditSentence(entry, locale),
    })),
    ...operatorActions.map((entry) => ({
      id: entry.id,
      at: entry.at,
      where: 'Operators',
      sentence: operatorAuditSentence(entry),
    })),
  ];
  return lines.sort((a, b) => (a.at === b.at ? b.id.localeCompare(a.id) : a.at < b.at ? 1 : -1));
}
