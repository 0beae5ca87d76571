import '../../features/admin/components/admin.css';
import { Navigate, useParams } from 'react-router-dom';
import { AdminEmailsPanel } from '../../features/admin/components/admin-emails-panel';
import { AuditList } from '../../features/admin/components/audit-list';
import { OrganizationsTable } from '../../features/admin/components/organizations-table';
import { UsersTable } from '../../features/admin/components/users-table';
import { useAuth } from '../../lib/auth/auth-provider';
import { PageTitle, Tabs } from '../../ui';

/**
 * Issue #26: users, organizations, the admin email list and the operators' audit each on their own
 * tab (a link, so each has its address and Back works), not one page many screens long on a phone.
 */
const accountTabs = [
  { to: '/admin/accounts', label: 'Users', end: true },
  { to: '/admin/accounts/organizations', label: 'Organizations' },
  { to: '/admin/accounts/admins', label: 'Admin emails' },
  { to: '/admin/accounts/audit', label: 'Audit' },
] as const;

/** Spec §2 Admin area, Accounts: users, organizations, the admin email list and the operators' audit. */
export default function AdminAccountsRoute() {
  const { user } = useAuth();
  const { tab } = useParams();
  if (tab !== undefined && !['organizations', 'admins', 'audit'].includes(tab))
    return <Navigate to="/admin/accounts" replace />;
  return (
    <div className="console-screen console-screen--wide">
      <PageTitle title="Admin — Accounts" description="Quietwire admin console: Accounts." />
      <div className="console-screen__head">
        <h1>Accounts</h1>
        <p className="qw-muted">
          Everyone with an account, every organization, who is an admin, and what operators did.
        </p>
      </div>
      <div className="admin-account-tabs">
        <Tabs label="Accounts" items={accountTabs} />
      </div>
      <div className="admin-sections">
        {tab === undefined && <UsersTable />}
        {tab === 'organizations' && <OrganizationsTable />}
        {tab === 'admins' && <AdminEmailsPanel currentEmail={user?.email} />}
        {tab === 'audit' && <AuditList />}
      </div>
    </div>
  );
}
