import { orgDevicesPerUser, plans, refundWindowDays } from '@qw/contracts';
import { PlanCard } from '../../features/checkout/components/plan-card';
import { PriceRangeTable, ProviderComparisonTable } from '../../features/marketing/components/comparison-tables';
import { PageTitle } from '../../ui';

const personalPlans = plans.filter((plan) => plan.accountType === 'personal');
const businessPlans = plans.filter((plan) => plan.accountType === 'business');

export default function PricingRoute() {
  return (
    <div className="qw-container qw-page">
      <PageTitle
        title="Pricing"
        description={`Quietwire plans: Personal and Gaming with unlimited devices, and Business plans priced by device quota. Monthly prices in USD with a ${refundWindowDays}-day money-back guarantee.`}
      />
      <header className="qw-page-head">
        <p className="qw-eyebrow">Pricing</p>
        <h1>Plans and prices</h1>
        <p className="qw-lead">
          Monthly prices in US dollars. Every plan uses WireGuard, keeps no logs and comes with a {refundWindowDays}-day
          money-back guarantee.
        </p>
      </header>

      <section id="personal" className="qw-stack qw-stack--lg" aria-labelledby="personal-title">
        <div className="qw-stack qw-stack--sm">
          <h2 id="personal-title">Personal and Gaming</h2>
          <p className="qw-muted">For you and every device you own.</p>
        </div>
        <div className="co-plan-grid">
          {personalPlans.map((plan) => (
            <PlanCard key={plan.code} plan={plan} />
          ))}
        </div>
      </section>

      <section id="business" className="qw-stack qw-stack--lg" aria-labelledby="business-title">
        <div className="qw-stack qw-stack--sm">
          <h2 id="business-title">Business</h2>
          <p className="qw-muted">
            Priced by device quota. Each person can have up to {orgDevicesPerUser} devices; admins add and revoke them
            centrally.
          </p>
        </div>
        <div className="co-plan-grid">
          {businessPlans.map((plan) => (
            <PlanCard key={plan.code} plan={plan} />
          ))}
        </div>
      </section>

      <section id="compare" className="qw-stack qw-stack--lg" aria-labelledby="compare-title">
        <div className="qw-stack qw-stack--sm">
          <h2 id="compare-title">Compare providers</h2>
          <p className="qw-muted">What six other VPN providers charge and include, next to Quietwire.</p>
        </div>
        <ProviderComparisonTable />
        <PriceRangeTable />
      </section>
    </div>
  );
}
