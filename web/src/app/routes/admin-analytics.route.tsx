import { AnalyticsDashboard } from '../../features/analytics/components/analytics-dashboard';
import { PageTitle } from '../../ui';

/** Spec §2 Admin area, Analytics: revenue and subscription analytics (§3, §7, §9). */
export default function AdminAnalyticsRoute() {
  return (
    <div className="console-screen">
      <PageTitle title="Admin — Analytics" description="Quietwire admin console: revenue and subscription analytics." />
      <div className="console-screen__head">
        <h1>Analytics</h1>
        <p className="qw-muted">Revenue, subscriptions, retention and the sign-up funnel. Money in USD; days in UTC.</p>
      </div>
      <AnalyticsDashboard />
    </div>
  );
}
