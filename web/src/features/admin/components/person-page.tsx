import { planDisplayName } from '@qw/contracts';
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { hasErrorCode } from '../../../lib/api-client';
import { formatAmount, formatDate, formatDateTime, formatPeriod } from '../../../lib/format';
import { Alert, Badge, Table, type TableColumn } from '../../../ui';
import { timeAgo } from '../../devices/utils/device-facts';
import { type AdminPerson, usePerson } from '../api/get-person';
import { personAuditLines, type PersonAuditLine } from '../utils/person-audit';
import { LoadFailure } from './list-controls';
import { TestAccountAction } from './test-account-action';

type Device = AdminPerson['devices'][number];
type Invoice = AdminPerson['invoices'][number];
type Membership = AdminPerson['organizations'][number];

/** Spec §3 account_type in words. */
const accountTypes: Readonly<Record<string, string>> = { admin: 'Admin', business: 'Business', personal: 'Personal' };
const roleNames: Readonly<Record<string, string>> = {
  owner: 'Owner',
  admin: 'Admin',
  member: 'Member',
  client: 'Customer',
};

function Facts({ rows }: { rows: Array<[string, ReactNode]> }) {
  return (
    <dl className="admin-person__facts">
      {rows.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section className="admin-section" aria-labelledby={`person-${id}`}>
      <h2 id={`person-${id}`} className="admin-section__title">
        {title}
      </h2>
      {children}
    </section>
  );
}

/** `suspended (operator)` → 'Suspended by an operator'; provisioning's status words otherwise. */
function deviceStatus(status: string): ReactNode {
  if (status === 'active') return <Badge tone="success">Active</Badge>;
  const by = /^suspended \((.+)\)$/.exec(status)?.[1];
  const who: Readonly<Record<string, string>> = {
    person: 'by its person',
    organization: 'by its organization',
    operator: 'by an operator',
    plan: 'no plan',
  };
  return (
    <span className="admin-cell-stack">
      <Badge tone="warning">Suspended</Badge>
      {by && <span className="qw-small qw-muted">{who[by] ?? by}</span>}
    </span>
  );
}

/**
 * Issue #26, Operator console → Accounts: one person's own page. Profile, plan, organizations with
 * roles, devices, invoices, sessions and the audit about them, each from the service that owns it.
 * `actions` is the operator's toolbar for this person (rendered under the profile).
 */
export function PersonPage({ id, actions }: { id: string; actions?: (person: AdminPerson) => ReactNode }) {
  const person = usePerson(id);
  const now = new Date();
  if (person.isError && !person.data) {
    if (hasErrorCode(person.error, 'not_found'))
      return (
        <Alert tone="error" title="No such account">
          Nobody has this id: the account may have been deleted. <Link to="/admin/accounts">Back to the users</Link>
        </Alert>
      );
    return (
      <LoadFailure
        title="This account did not load."
        error={person.error}
        onRetry={() => void person.refetch()}
        retrying={person.isFetching}
      />
    );
  }
  const data = person.data;
  if (!data) return <p className="qw-muted">Loading…</p>;
  const { profile } = data;

  const organizationColumns: TableColumn<Membership>[] = [
    { key: 'name', header: 'Organization', rowHeader: true, cell: (org) => org.name },
    { key: 'role', header: 'Role', cell: (org) => roleNames[org.role] ?? org.role },
    { key: 'joined', header: 'Joined', className: 'admin-nowrap', cell: (org) => formatDate(org.joined_at) },
  ];
  const orgName = new Map(data.organizations.map((org) => [org.id, org.name]));
  const deviceColumns: TableColumn<Device>[] = [
    {
      key: 'name',
      header: 'Name',
      rowHeader: true,
      cell: (device) => (
        <span className="admin-cell-stack">
          <span className="admin-break">{device.name}</span>
          <span className="qw-small qw-muted">
            {device.organization_id ? (orgName.get(device.organization_id) ?? 'An organization') : 'Personal'}
          </span>
        </span>
      ),
    },
    { key: 'status', header: 'Status', cell: (device) => deviceStatus(device.status) },
    { key: 'server', header: 'Server', cell: (device) => device.server ?? '—' },
    {
      key: 'handshake',
      header: 'Last handshake',
      className: 'admin-nowrap',
      cell: (device) => timeAgo(device.last_handshake_at, now),
    },
  ];
  const invoiceColumns: TableColumn<Invoice>[] = [
    { key: 'number', header: 'Invoice', rowHeader: true, cell: (invoice) => invoice.number ?? '—' },
    { key: 'plan', header: 'Plan', cell: (invoice) => (invoice.plan ? planDisplayName(invoice.plan) : '—') },
    {
      key: 'period',
      header: 'Period',
      className: 'admin-nowrap',
      cell: (invoice) => formatPeriod(invoice.period_start, invoice.period_end),
    },
    {
      key: 'amount',
      header: 'Amount',
      type: 'number',
      cell: (invoice) => formatAmount(invoice.amount_cents, invoice.currency),
    },
    { key: 'status', header: 'Status', cell: (invoice) => invoice.status },
  ];
  const auditColumns: TableColumn<PersonAuditLine>[] = [
    { key: 'at', header: 'When', rowHeader: true, className: 'admin-nowrap', cell: (line) => formatDateTime(line.at) },
    { key: 'where', header: 'Where', cell: (line) => line.where },
    { key: 'sentence', header: 'What happened', cell: (line) => <span className="admin-break">{line.sentence}</span> },
  ];

  return (
    <div className="admin-sections">
      <Section id="profile" title="Profile">
        <Facts
          rows={[
            ['Email', <span className="admin-break">{profile.email}</span>],
            ['Name', profile.full_name || '—'],
            [
              'Email confirmed',
              profile.email_verified ? (
                `Yes, ${formatDate(profile.email_verified_at)}`
              ) : (
                <Badge tone="warning">Not confirmed</Badge>
              ),
            ],
            ['Created', formatDate(profile.created_at)],
            ['Account type', accountTypes[profile.account_type] ?? profile.account_type],
            ['Role', profile.is_admin ? 'Platform admin' : (roleNames[profile.role] ?? profile.role)],
            ['Two-factor sign-in', profile.two_factor ? 'On' : 'Off'],
            [
              'Account',
              profile.suspension ? (
                <span className="admin-break">
                  <Badge tone="warning">Suspended</Badge> since {formatDate(profile.suspension.since)}: “
                  {profile.suspension.reason}”
                </span>
              ) : (
                'Active'
              ),
            ],
          ]}
        />
        {actions?.(data)}
        <TestAccountAction person={data} />
      </Section>
      <Section id="plan" title="Plan">
        {data.plan ? (
          <Facts
            rows={[
              ['Plan', planDisplayName(data.plan.code)],
              ['Status', data.plan.status],
              ['Renews or ends', formatDate(data.plan.current_period_end)],
            ]}
          />
        ) : (
          <p className="qw-muted">No personal plan.</p>
        )}
      </Section>
      <Section id="sessions" title="Sessions">
        <Facts
          rows={[
            ['Signed in on', data.sessions.active === 1 ? '1 session' : `${data.sessions.active} sessions`],
            ['Last used', data.sessions.last_used_at ? formatDateTime(data.sessions.last_used_at) : 'Never'],
          ]}
        />
      </Section>
      <Section id="organizations" title="Organizations">
        <Table
          caption="Organizations and roles"
          captionHidden
          columns={organizationColumns}
          rows={data.organizations}
          rowKey={(org) => org.id}
          emptyText="Not a member of any organization."
          stacked
        />
      </Section>
      <Section id="devices" title="Devices">
        <Table
          caption="Devices"
          captionHidden
          columns={deviceColumns}
          rows={data.devices}
          rowKey={(device) => device.id}
          emptyText="No devices."
          stacked
        />
      </Section>
      <Section id="invoices" title="Invoices">
        <Table
          caption="Invoices, newest first"
          captionHidden
          columns={invoiceColumns}
          rows={data.invoices}
          rowKey={(invoice) => invoice.id}
          emptyText="No invoices."
          stacked
        />
      </Section>
      <Section id="audit" title="Audit">
        <Table
          caption="What this person did and what was done to them, newest first"
          captionHidden
          columns={auditColumns}
          rows={personAuditLines(data.activity, data.operator_actions)}
          rowKey={(line) => line.id}
          emptyText="Nothing recorded yet."
          stacked
        />
      </Section>
    </div>
  );
}
