import { AdminEmailsPanel } from '../../features/admin/components/admin-emails-panel';
import { AuditList } from '../../features/admin/components/audit-list';
import { OrganizationsTable } from '../../features/admin/components/organizations-table';
import { UsersTable } from '../../features/admin/components/users-table';
import { useAuth } from '../../lib/auth/auth-provider';
import { PageTitle } from '../../ui';

/** Spec §2 Admin area, Accounts: users, organizations, the admin email list and the operators' audit. */
export default function AdminAccountsRoute() {
  const { user } = useAuth();
  return (
    <div className="console-screen console-screen--wide">
      <PageTitle title="Admin — Accounts" description="Quietwire admin console: Accounts." />
      <div className="console-screen__head">
        <h1>Accounts</h1>
        <p className="qw-muted">
          Everyone with an account, every organization, who is an admin, and what operators did.
        </p>
      </div>
      <div className="admin-sections">
        <UsersTable />
        <OrganizationsTable />
        <AdminEmailsPanel currentEmail={user?.email} />
        <AuditList />
      </div>
    </div>
  );
}
