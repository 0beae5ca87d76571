import { adminPageSizes } from '@qw/contracts';
import { useState } from 'react';
import { formatDateTime } from '../../../lib/format';
import { Table, type TableColumn } from '../../../ui';
import { type AdminAuditEntry, useAudit } from '../api/get-audit';
import { auditKindText } from '../format';
import { LoadFailure, Pager } from './list-controls';

/** A few words for an entry's details ('reason: …'), whatever keys the server sends. */
function detailsText(details: Record<string, unknown>): string {
  const parts = Object.entries(details)
    .filter(([, value]) => value !== null && value !== undefined && typeof value !== 'object')
    .map(([key, value]) => `${key.replaceAll('_', ' ')}: ${String(value)}`);
  return parts.length > 0 ? parts.join(', ') : '—';
}

const columns: TableColumn<AdminAuditEntry>[] = [
  { key: 'at', header: 'When', rowHeader: true, cell: (entry) => formatDateTime(entry.at) },
  { key: 'actor', header: 'Operator', cell: (entry) => <span className="admin-break">{entry.actor_email}</span> },
  { key: 'kind', header: 'Action', cell: (entry) => auditKindText(entry.kind) },
  { key: 'target', header: 'Target', cell: (entry) => <span className="admin-break">{entry.target}</span> },
  { key: 'details', header: 'Details', cell: (entry) => detailsText(entry.details) },
];

/**
 * The operators' own actions, newest first: identity's (the admin list, organizations) and
 * provisioning's (devices, nodes) merged by the server, which pages with a cursor; the page keeps
 * the cursors it came through so Previous goes back exactly.
 */
export function AuditList() {
  const [cursors, setCursors] = useState<string[]>([]);
  const [perPage, setPerPage] = useState<number>(adminPageSizes.default);
  const before = cursors.at(-1);
  const audit = useAudit({ per_page: perPage, ...(before ? { before } : {}) });
  const data = audit.data;
  const page = data && { page: cursors.length + 1, per_page: data.per_page, total: data.total };
  return (
    <section className="admin-section" aria-labelledby="admin-audit-title">
      <h2 id="admin-audit-title" className="admin-section__title">
        Audit
      </h2>
      {audit.isError && !data ? (
        <LoadFailure
          title="The audit did not load."
          error={audit.error}
          onRetry={() => void audit.refetch()}
          retrying={audit.isFetching}
        />
      ) : (
        <Table
          caption="Operators' actions, newest first"
          captionHidden
          columns={columns}
          rows={data?.rows}
          rowKey={(entry) => entry.id}
          loading={audit.isPending}
          emptyText="No operator action yet."
          stacked
        />
      )}
      <Pager
        label="entries"
        page={page}
        busy={audit.isFetching}
        hasNext={Boolean(data?.next)}
        onPage={(target) => {
          if (target < cursors.length + 1) setCursors((list) => list.slice(0, target - 1));
          else if (data?.next) setCursors((list) => [...list, data.next as string]);
        }}
        onPerPage={(size) => {
          setPerPage(size);
          setCursors([]);
        }}
      />
    </section>
  );
}
