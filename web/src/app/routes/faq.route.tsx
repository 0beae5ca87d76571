import {
  FeatureComparisonTable,
  PriceRangeTable,
  ProviderComparisonTable,
} from '../../features/marketing/components/comparison-tables';
import { FaqList } from '../../features/marketing/components/faq-list';
import { PageTitle } from '../../ui';

export default function FaqRoute() {
  return (
    <div className="qw-container qw-page">
      <PageTitle
        title="FAQ"
        description="Answers about Quietwire: devices, logs, WireGuard, speed, refunds, streaming, gaming, setup, payment, business plans, server locations and support."
      />
      <header className="qw-page-head">
        <p className="qw-eyebrow">FAQ</p>
        <h1>Frequently asked questions</h1>
        <p className="qw-lead">
          Short answers to what people ask us most. Anything else, ask us through the contact page.
        </p>
      </header>
      <FaqList />
      <section className="qw-stack qw-stack--lg" aria-labelledby="faq-compare-title">
        <h2 id="faq-compare-title">How Quietwire compares</h2>
        <FeatureComparisonTable />
        <ProviderComparisonTable />
        <PriceRangeTable />
      </section>
    </div>
  );
}
