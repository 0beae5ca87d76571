import { PageTitle } from '../../ui';

/** Placeholder: the admin Accounts screen is built by the admin console issue. */
export default function AdminAccountsRoute() {
  return (
    <div className="console-screen">
      <PageTitle title="Admin — Accounts" description="Quietwire admin console: Accounts." />
      <div className="console-screen__head">
        <h1>Accounts</h1>
        <p className="qw-muted" data-placeholder="admin-accounts">
          The users and organizations tables will appear here.
        </p>
      </div>
    </div>
  );
}
