import { PageTitle } from '../../ui';

/** Placeholder: the admin Telemetry screen is built by the admin console issue. */
export default function AdminTelemetryRoute() {
  return (
    <div className="console-screen">
      <PageTitle title="Admin — Telemetry" description="Quietwire admin console: Telemetry." />
      <div className="console-screen__head">
        <h1>Telemetry</h1>
        <p className="qw-muted" data-placeholder="admin-telemetry">
          The latest telemetry of every device will appear here.
        </p>
      </div>
    </div>
  );
}
