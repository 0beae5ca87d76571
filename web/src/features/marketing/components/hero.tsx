import { formatUsd, plans, refundWindowDays } from '@qw/contracts';
import { ButtonLink, Card } from '../../../ui';
import './marketing.css';

const lowestPrice = formatUsd(Math.min(...plans.map((plan) => plan.priceCents)));

export function Hero() {
  return (
    <section className="mk-hero" aria-labelledby="hero-title">
      <div className="mk-hero__text">
        <p className="qw-eyebrow">WireGuard VPN</p>
        <h1 id="hero-title" className="mk-hero__title">
          Private. Fast. Simple.
        </h1>
        <p className="qw-lead">
          Quietwire is a VPN built only on WireGuard. It keeps no logs of what you do, connects in seconds, and works on
          every device you own.
        </p>
        <div className="qw-cluster">
          <ButtonLink to="/pricing">Get Started</ButtonLink>
          <ButtonLink to="/faq" variant="secondary">
            How it works
          </ButtonLink>
        </div>
        <ul className="mk-facts">
          <li>From {lowestPrice}/month</li>
          <li>{refundWindowDays}-day money-back guarantee</li>
          <li>24/7 email support</li>
        </ul>
      </div>
      <WhyCard />
    </section>
  );
}

function WhyCard() {
  return (
    <Card as="section" className="mk-why" aria-labelledby="why-title">
      <h2 id="why-title" className="qw-card__title">
        Why Quietwire
      </h2>
      <ul className="mk-checklist">
        <li>
          <strong>WireGuard only.</strong> A small, modern protocol with nothing older to fall back to.
        </li>
        <li>
          <strong>Strict no-logs policy.</strong> We don’t record the sites you visit or what you send.
        </li>
        <li>
          <strong>Unlimited devices</strong> on Personal and Gaming (fair use: up to 100 per account).
        </li>
        <li>
          <strong>Low-latency gaming routes</strong> and DDoS protection.
        </li>
        <li>
          <strong>Servers in North America, Europe and Asia.</strong>
        </li>
      </ul>
    </Card>
  );
}
