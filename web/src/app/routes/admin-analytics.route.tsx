import { PageTitle } from '../../ui';

/** Placeholder: the admin Analytics screen is built by the admin console issue. */
export default function AdminAnalyticsRoute() {
  return (
    <div className="console-screen">
      <PageTitle title="Admin — Analytics" description="Quietwire admin console: Analytics." />
      <div className="console-screen__head">
        <h1>Analytics</h1>
        <p className="qw-muted" data-placeholder="admin-analytics">
          Revenue and subscription analytics will appear here.
        </p>
      </div>
    </div>
  );
}
