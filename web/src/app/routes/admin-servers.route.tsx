import { PageTitle } from '../../ui';

/** Placeholder: the admin Servers screen is built by the admin console issue. */
export default function AdminServersRoute() {
  return (
    <div className="console-screen">
      <PageTitle title="Admin — Servers" description="Quietwire admin console: Servers." />
      <div className="console-screen__head">
        <h1>Servers</h1>
        <p className="qw-muted" data-placeholder="admin-servers">
          One card per server host with its latest metrics will appear here.
        </p>
      </div>
    </div>
  );
}
