import { adminPageSizes } from '@qw/contracts';
import { useState } from 'react';
import { formatDateTime } from '../../../lib/format';
import { Table, type TableColumn } from '../../../ui';
import { type AdminAuditEntry, useAudit } from '../api/get-audit';
import { operatorAuditSentence } from '../utils/operator-audit-sentences';
import { LoadFailure, Pager } from './list-controls';

// Issue #26: each entry reads as a sentence naming the operator, the action and its target.
const columns: TableColumn<AdminAuditEntry>[] = [
  { key: 'at', header: 'When', rowHeader: true, className: 'admin-nowrap', cell: (entry) => formatDateTime(entry.at) },
  {
    key: 'sentence',
    header: 'What happened',
    cell: (entry) => <span className="admin-break">{operatorAuditSentence(entry)}</span>,
  },
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
