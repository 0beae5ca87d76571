import { AdminTelemetryPanel } from '../../features/admin/components/admin-telemetry';
import { PageTitle } from '../../ui';

/** Spec §2 Admin area, Telemetry: the latest telemetry per device. */
export default function AdminTelemetryRoute() {
  return (
    <div className="console-screen console-screen--wide">
      <PageTitle title="Admin — Telemetry" description="Quietwire admin console: Telemetry." />
      <div className="console-screen__head">
        <h1>Telemetry</h1>
        <p className="qw-muted">
          The latest sample of every device. '—' marks a figure its node cannot measure; endpoints are masked.
        </p>
      </div>
      <AdminTelemetryPanel />
    </div>
  );
}
