import { useState } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { Alert, Button, Field, Select, Table, type TableColumn } from '../../../ui';
import { getAuditLog, useAuditLog, type AuditEntry, type AuditFilter } from '../api/get-audit-log';
import type { Organization } from '../api/get-organizations';
import { useOrgUsers, userLabel } from '../api/get-org-users';
import { auditCsv, auditSentence, readerDateTime } from '../utils/audit-sentences';
import {
  auditKindLabel,
  auditKindOptions,
  currentCursor,
  firstAuditPage,
  newerPage,
  olderPage,
  type AuditPaging,
} from '../utils/organization-rules';
import { managesOrg } from './organization-account';
import './organizations.css';

const columns: TableColumn<AuditEntry>[] = [
  {
    key: 'at',
    header: 'When',
    cell: (e) => <time dateTime={e.at}>{readerDateTime(e.at)}</time>,
  },
  { key: 'what', header: 'What happened', rowHeader: true, cell: (e) => auditSentence(e) },
  { key: 'kind', header: 'Kind', cell: (e) => <span className="qw-muted qw-small">{auditKindLabel(e.kind)}</span> },
];

/** The most entries one export gathers (a page at a time, newest first). */
const exportLimit = 10_000;

/**
 * /app/business/activity (issues #12, #26): the audit log, newest first, each entry a sentence
 * with its date as the reader's browser writes it; filtered by kind and person, a page at a time,
 * and exported as CSV with the same filters. Owners and admins only.
 */
export function OrgActivity({ org }: { org: Organization }) {
  if (!managesOrg(org)) return <Alert tone="info">Only owners and admins of {org.name} can read its activity.</Alert>;
  return <AuditLog org={org} />;
}

function AuditLog({ org }: { org: Organization }) {
  const [kind, setKind] = useState('');
  const [person, setPerson] = useState('');
  const [paging, setPaging] = useState<AuditPaging>(firstAuditPage);
  const users = useOrgUsers(org.id);
  const log = useAuditLog(org.id, {
    kind: kind || undefined,
    person: person || undefined,
    before: currentCursor(paging),
  });
  const page = log.data;
  const isFirst = paging.cursors.length === 1;

  return (
    <section className="qw-stack" aria-labelledby="org-activity-title">
      <h2 id="org-activity-title" className="qw-visually-hidden">
        Activity of {org.name}
      </h2>
      <form className="org-filters" aria-label="Filter the activity" onSubmit={(event) => event.preventDefault()}>
        <Field id="audit-kind" label="Kind">
          <Select
            value={kind}
            onChange={(event) => {
              setKind(event.target.value);
              setPaging(firstAuditPage);
            }}
          >
            <option value="">All kinds</option>
            {auditKindOptions.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </Select>
        </Field>
        <Field id="audit-person" label="Person">
          <Select
            value={person}
            onChange={(event) => {
              setPerson(event.target.value);
              setPaging(firstAuditPage);
            }}
          >
            <option value="">Everyone</option>
            {(users.data ?? []).map((u) => (
              <option key={u.user_id} value={u.user_id}>
                {userLabel(u)}
              </option>
            ))}
          </Select>
        </Field>
        <ExportActivity org={org} filter={{ kind: kind || undefined, person: person || undefined }} />
      </form>
      {log.isError && (
        <Alert tone="error">
          {failureMessage(log.error, 'We couldn’t load the activity. Please reload the page.')}
        </Alert>
      )}
      <Table
        caption={`Activity of ${org.name}, newest first`}
        captionHidden
        columns={columns}
        rows={page?.entries}
        rowKey={(e) => e.id}
        loading={log.isPending}
        skeletonRows={5}
        className="org-audit-table"
        emptyText={kind || person ? 'Nothing matches these filters.' : 'Nothing has happened yet.'}
      />
      <nav className="org-pager" aria-label="Activity pages">
        <Button variant="secondary" size="small" disabled={isFirst} onClick={() => setPaging(newerPage)}>
          Newer
        </Button>
        <Button
          variant="secondary"
          size="small"
          disabled={!page?.next || log.isPlaceholderData}
          onClick={() => setPaging((current) => olderPage(current, page?.next ?? null))}
        >
          Older
        </Button>
      </nav>
    </section>
  );
}

/** Every entry the filters select (up to `exportLimit`), fetched a page at a time and saved as a CSV file. */
function ExportActivity({ org, filter }: { org: Organization; filter: Omit<AuditFilter, 'before'> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function onExport() {
    setBusy(true);
    setError(null);
    try {
      const entries: AuditEntry[] = [];
      let before: string | undefined;
      do {
        const page = await getAuditLog(org.id, { ...filter, before });
        entries.push(...page.entries);
        before = page.next ?? undefined;
      } while (before && entries.length < exportLimit);
      const file = new Blob([auditCsv(entries)], { type: 'text/csv;charset=utf-8' });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(file);
      link.download = `${org.name.replace(/[^\w.-]+/g, '-')}-activity.csv`;
      link.click();
      URL.revokeObjectURL(link.href);
    } catch (failure) {
      setError(failureMessage(failure, 'We couldn’t export the activity. Please try again.'));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="org-export">
      <Button variant="secondary" onClick={onExport} busy={busy} busyText="Exporting…">
        Export CSV
      </Button>
      {error && (
        <p className="org-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
