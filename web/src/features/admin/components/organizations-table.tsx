import { adminPageSizes, planDisplayName, suspensionReasonMaxLength } from '@qw/contracts';
import { useState } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { formatDate } from '../../../lib/format';
import { Alert, Badge, Button, Modal, Table, type TableColumn, type TableSort } from '../../../ui';
import { type AdminOrganization, type AdminOrganizationsQuery, useOrganizations } from '../api/get-organizations';
import { type OrganizationStatusChange, useSetOrganizationStatus } from '../api/set-organization-status';
import { formatCount, serverSort } from '../format';
import { FilterSelect, LoadFailure, Pager, SearchForm, SortSelect } from './list-controls';
import { SuspensionReasonField } from './operator-action-parts';

const sortKeys = ['name', 'created_at', 'members'] as const;
const defaultSort: TableSort = { key: 'created_at', direction: 'descending' };

/**
 * Spec §2 Accounts: the organizations table (name, plan, members, Active or Suspended), searched,
 * filtered, sorted and paged on the server; an operator suspends or reactivates one after a confirmation.
 */
export function OrganizationsTable() {
  const [q, setQ] = useState('');
  const [status, setStatus] = useState('');
  const [sort, setSort] = useState<TableSort>(defaultSort);
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState<number>(adminPageSizes.default);
  const [pending, setPending] = useState<{ org: AdminOrganization; action: OrganizationStatusChange['action'] } | null>(
    null,
  );
  const [error, setError] = useState<string | null>(null);
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string | null>(null);
  const change = useSetOrganizationStatus();

  const query: AdminOrganizationsQuery = {
    ...(q ? { q } : {}),
    ...(status === 'Active' || status === 'Suspended' ? { status } : {}),
    ...serverSort(sort, sortKeys),
    page,
    per_page: perPage,
  };
  const organizations = useOrganizations(query);
  const changeSort = (next: TableSort) => {
    setSort(next);
    setPage(1);
  };

  const columns: TableColumn<AdminOrganization>[] = [
    { key: 'name', header: 'Name', sortable: true, rowHeader: true, cell: (org) => org.name },
    { key: 'plan', header: 'Plan', cell: (org) => (org.plan ? planDisplayName(org.plan) : '—') },
    { key: 'members', header: 'Members', type: 'number', sortable: true, cell: (org) => formatCount(org.members) },
    {
      key: 'status',
      header: 'Status',
      cell: (org) => (
        <span className="admin-cell-stack">
          {org.status === 'Active' ? <Badge tone="success">Active</Badge> : <Badge tone="warning">Suspended</Badge>}
          {org.suspended_by_operator && (
            <span className="qw-small qw-muted">
              By an operator{org.suspension_reason ? `: ${org.suspension_reason}` : ''}
            </span>
          )}
        </span>
      ),
    },
    {
      key: 'created_at',
      header: 'Created',
      sortable: true,
      className: 'admin-nowrap',
      cell: (org) => formatDate(org.created_at),
    },
    {
      key: 'actions',
      header: 'Actions',
      cell: (org) =>
        org.suspended_by_operator ? (
          <Button
            variant="secondary"
            size="small"
            aria-label={`Reactivate ${org.name}`}
            onClick={() => setPending({ org, action: 'reactivate' })}
          >
            Reactivate
          </Button>
        ) : (
          <Button
            variant="secondary"
            size="small"
            aria-label={`Suspend ${org.name}`}
            onClick={() => {
              setReason('');
              setReasonError(null);
              setPending({ org, action: 'suspend' });
            }}
          >
            Suspend
          </Button>
        ),
    },
  ];

  async function confirm() {
    if (!pending) return;
    // Issue #26: a suspension says why; the organization's members read it on their Account page.
    const why = reason.trim();
    if (pending.action === 'suspend' && why === '') {
      setReasonError('Say why: the members of this organization read it.');
      return;
    }
    setError(null);
    try {
      await change.mutateAsync(
        pending.action === 'suspend'
          ? { id: pending.org.id, action: 'suspend', reason: why }
          : { id: pending.org.id, action: 'reactivate' },
      );
    } catch (failure) {
      setError(failureMessage(failure, `${pending.org.name} did not change. Try again in a moment.`));
    }
    setPending(null);
  }

  return (
    <section className="admin-section" aria-labelledby="admin-orgs-title">
      <h2 id="admin-orgs-title" className="admin-section__title">
        Organizations
      </h2>
      <div className="admin-toolbar">
        <SearchForm
          label="Search organizations"
          placeholder="Name"
          value={q}
          onSearch={(value) => {
            setQ(value);
            setPage(1);
          }}
        />
        <div className="admin-filters">
          <FilterSelect
            label="Status"
            value={status}
            options={[
              { value: 'Active', label: 'Active' },
              { value: 'Suspended', label: 'Suspended' },
            ]}
            onChange={(value) => {
              setStatus(value);
              setPage(1);
            }}
          />
          <SortSelect
            label="Sort organizations"
            value={sort}
            options={[
              { value: 'created_at', label: 'Created' },
              { value: 'name', label: 'Name' },
              { value: 'members', label: 'Members' },
            ]}
            onChange={changeSort}
          />
        </div>
      </div>
      {error && (
        <Alert tone="error" title="Action failed">
          {error}
        </Alert>
      )}
      {organizations.isError && !organizations.data ? (
        <LoadFailure
          title="The organizations did not load."
          error={organizations.error}
          onRetry={() => void organizations.refetch()}
          retrying={organizations.isFetching}
        />
      ) : (
        <Table
          caption="Organizations"
          captionHidden
          columns={columns}
          rows={organizations.data?.rows}
          rowKey={(org) => org.id}
          loading={organizations.isPending}
          emptyText={q || status ? 'No organization matches.' : 'No organizations yet.'}
          sort={sort}
          onSortChange={changeSort}
          stacked
        />
      )}
      <Pager
        label="organizations"
        page={organizations.data}
        busy={organizations.isFetching}
        onPage={setPage}
        onPerPage={(size) => {
          setPerPage(size);
          setPage(1);
        }}
      />
      <Modal
        open={pending !== null}
        title={
          pending?.action === 'suspend' ? `Suspend ${pending.org.name}?` : `Reactivate ${pending?.org.name ?? ''}?`
        }
        confirmLabel={pending?.action === 'suspend' ? 'Suspend' : 'Reactivate'}
        confirmVariant={pending?.action === 'suspend' ? 'danger' : 'primary'}
        busy={change.isPending}
        busyText={pending?.action === 'suspend' ? 'Suspending…' : 'Reactivating…'}
        onCancel={() => setPending(null)}
        onConfirm={() => void confirm()}
      >
        <p>
          {pending?.action === 'suspend'
            ? 'Its devices stop connecting until an operator reactivates it, whatever its plan.'
            : 'It becomes Active again if its plan still entitles it; its devices can connect again.'}
        </p>
        {pending?.action === 'suspend' && (
          <SuspensionReasonField
            hint="Shown to the organization's members on their Account page, as written here."
            value={reason}
            error={reasonError}
            maxLength={suspensionReasonMaxLength}
            onChange={(value) => {
              setReason(value);
              if (reasonError) setReasonError(null);
            }}
          />
        )}
      </Modal>
    </section>
  );
}
