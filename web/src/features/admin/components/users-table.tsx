import { adminPageSizes, planDisplayName } from '@qw/contracts';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { formatDate } from '../../../lib/format';
import { Badge, Table, type TableColumn, type TableSort } from '../../../ui';
import { type AdminUsersQuery, useUsers } from '../api/get-users';
import { serverSort } from '../format';
import { LoadFailure, Pager, SearchForm, SortSelect } from './list-controls';

type AdminUser = NonNullable<ReturnType<typeof useUsers>['data']>['rows'][number];

const sortKeys = ['email', 'full_name', 'created_at'] as const;
const defaultSort: TableSort = { key: 'created_at', direction: 'descending' };

/** Spec §3 account_type in words. */
const accountTypes: Readonly<Record<string, string>> = { admin: 'Admin', business: 'Business', personal: 'Personal' };

const columns: TableColumn<AdminUser>[] = [
  {
    key: 'email',
    header: 'Email',
    sortable: true,
    rowHeader: true,
    cell: (user) => (
      <span className="admin-cell-stack">
        <Link className="admin-break" to={`/admin/accounts/users/${user.id}`}>
          {user.email}
        </Link>
        {!user.email_verified && <span className="qw-small qw-muted">Not verified</span>}
      </span>
    ),
  },
  { key: 'full_name', header: 'Name', sortable: true, cell: (user) => user.full_name || '—' },
  {
    key: 'type',
    header: 'Type',
    cell: (user) => (
      <span className="admin-cell-stack">
        <span>{accountTypes[user.account_type] ?? user.account_type}</span>
        {user.is_admin && user.account_type !== 'admin' && <Badge tone="accent">Admin</Badge>}
        {user.is_test && <Badge tone="neutral">Test account</Badge>}
      </span>
    ),
  },
  { key: 'plan', header: 'Plan', cell: (user) => (user.plan ? planDisplayName(user.plan) : '—') },
  { key: 'orgs', header: 'Organizations', type: 'number', cell: (user) => String(user.organizations) },
  {
    key: 'created_at',
    header: 'Created',
    sortable: true,
    className: 'admin-nowrap',
    cell: (user) => formatDate(user.created_at),
  },
];

/** Spec §2 Accounts: the users table (email, name, type, plan, created), searched, sorted and paged on the server. */
export function UsersTable() {
  const [q, setQ] = useState('');
  const [sort, setSort] = useState<TableSort>(defaultSort);
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState<number>(adminPageSizes.default);
  const query: AdminUsersQuery = { ...(q ? { q } : {}), ...serverSort(sort, sortKeys), page, per_page: perPage };
  const users = useUsers(query);
  const changeSort = (next: TableSort) => {
    setSort(next);
    setPage(1);
  };

  return (
    <section className="admin-section" aria-labelledby="admin-users-title">
      <h2 id="admin-users-title" className="admin-section__title">
        Users
      </h2>
      <div className="admin-toolbar">
        <SearchForm
          label="Search users"
          placeholder="Email or name"
          value={q}
          onSearch={(value) => {
            setQ(value);
            setPage(1);
          }}
        />
        <div className="admin-filters">
          <SortSelect
            label="Sort users"
            value={sort}
            options={[
              { value: 'created_at', label: 'Created' },
              { value: 'email', label: 'Email' },
              { value: 'full_name', label: 'Name' },
            ]}
            onChange={changeSort}
          />
        </div>
      </div>
      {users.isError && !users.data ? (
        <LoadFailure
          title="The users did not load."
          error={users.error}
          onRetry={() => void users.refetch()}
          retrying={users.isFetching}
        />
      ) : (
        <Table
          caption="Users"
          captionHidden
          columns={columns}
          rows={users.data?.rows}
          rowKey={(user) => user.id}
          loading={users.isPending}
          emptyText={q ? 'No user matches.' : 'No users yet.'}
          sort={sort}
          onSortChange={changeSort}
          stacked
        />
      )}
      <Pager
        label="users"
        page={users.data}
        busy={users.isFetching}
        onPage={setPage}
        onPerPage={(size) => {
          setPerPage(size);
          setPage(1);
        }}
      />
    </section>
  );
}
