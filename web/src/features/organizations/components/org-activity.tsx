import { useState } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { formatDateTime } from '../../../lib/format';
import { Alert, Button, Field, Select, Table, type TableColumn } from '../../../ui';
import { useAuditLog, type AuditEntry } from '../api/get-audit-log';
import type { Organization } from '../api/get-organizations';
import { useOrgUsers, userLabel } from '../api/get-org-users';
import {
  auditDetailsText,
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
  { key: 'at', header: 'When', cell: (e) => <span className="qw-mono">{formatDateTime(e.at)}</span> },
  { key: 'kind', header: 'What', rowHeader: true, cell: (e) => auditKindLabel(e.kind) },
  { key: 'actor', header: 'Who', cell: (e) => e.actor?.name ?? <span className="qw-muted">Quietwire</span> },
  { key: 'target', header: 'Target', cell: (e) => e.target?.name ?? <span className="qw-muted">—</span> },
  {
    key: 'details',
    header: 'Details',
    cell: (e) => <span className="qw-small">{auditDetailsText(e.details) || '—'}</span>,
  },
];

/**
 * /app/business/activity (issue #12): the audit log, newest first: who did what to whom and when,
 * filtered by kind and person, a page at a time. Owners and admins only.
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
