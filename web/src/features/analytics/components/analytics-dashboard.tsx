import { useId } from 'react';
import { ChurnPanel } from './churn-panel';
import { CohortRetentionPanel } from './cohort-retention-panel';
import { FunnelPanel } from './funnel-panel';
import { KpiTiles } from './kpi-tiles';
import { MrrMovementsPanel } from './mrr-movements-panel';
import { ProjectionStatus } from './projection-status';
import { RevenueByPlanPanel } from './revenue-by-plan-panel';
import { RevenueDailyPanel } from './revenue-daily-panel';
import { SubscriptionsDailyPanel } from './subscriptions-daily-panel';
import './analytics.css';

/** Spec §2 Admin Analytics: the figures of §7 as tiles, the views of §3 as charts, each with its table. */
export function AnalyticsDashboard() {
  const figuresId = useId();
  return (
    <div className="analytics">
      <ProjectionStatus />
      <section aria-labelledby={figuresId}>
        <h2 id={figuresId} className="qw-visually-hidden">
          Key figures
        </h2>
        <KpiTiles />
      </section>
      <div className="analytics-charts">
        <RevenueDailyPanel />
        <SubscriptionsDailyPanel />
        <FunnelPanel />
        <MrrMovementsPanel />
        <RevenueByPlanPanel />
        <ChurnPanel />
        <CohortRetentionPanel />
      </div>
    </div>
  );
}
