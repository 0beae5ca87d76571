import { PageTitle } from '../../ui';

/** Placeholder: the admin Overview screen is built by the admin console issue. */
export default function AdminOverviewRoute() {
  return (
    <div className="console-screen">
      <PageTitle title="Admin — Overview" description="Quietwire admin console: Overview." />
      <div className="console-screen__head">
        <h1>Overview</h1>
        <p className="qw-muted" data-placeholder="admin-overview">
          Counts of users, organizations and devices, and the 24-hour traffic chart will appear here.
        </p>
      </div>
    </div>
  );
}
