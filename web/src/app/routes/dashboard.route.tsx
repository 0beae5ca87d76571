import { Card, PageTitle } from '../../ui';

/** Spec §2 /dashboard: a protected placeholder with two empty cards, Plan status and Devices. */
export default function DashboardRoute() {
  return (
    <div className="qw-stack focus-card focus-card--wide">
      <PageTitle title="Dashboard" description="Your Quietwire dashboard." />
      <div className="qw-stack qw-stack--sm">
        <h1>Dashboard</h1>
        <p className="qw-muted">
          Your plan status and devices will appear here after the auth and payment integrations.
        </p>
      </div>
      <div className="qw-grid">
        <Card as="section" aria-labelledby="dashboard-plan">
          <h2 id="dashboard-plan" className="qw-card__title">
            Plan status
          </h2>
        </Card>
        <Card as="section" aria-labelledby="dashboard-devices">
          <h2 id="dashboard-devices" className="qw-card__title">
            Devices
          </h2>
        </Card>
      </div>
    </div>
  );
}
