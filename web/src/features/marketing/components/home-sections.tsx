import { formatUsd, plans, refundWindowDays } from '@qw/contracts';
import { ButtonLink, Card } from '../../../ui';
import { FeatureComparisonTable } from './comparison-tables';
import { SpeedFigures } from './speed-figures';
import './marketing.css';

export function ComparisonSection() {
  return (
    <section className="mk-section" aria-labelledby="compare-title">
      <div className="mk-section__head">
        <h2 id="compare-title">How Quietwire compares</h2>
        <p className="qw-muted">The same questions, asked of six other providers.</p>
      </div>
      <FeatureComparisonTable />
    </section>
  );
}

const steps = [
  { title: 'Choose a plan', text: 'Personal, Gaming or Business. Pay by card; checkout takes a minute.' },
  {
    title: 'Create a device',
    text: 'Name it and pick its platform in your dashboard. We generate its WireGuard configuration.',
  },
  {
    title: 'Connect in seconds',
    text: 'Scan the QR code in the WireGuard app or import the config file. We email both to you too.',
  },
];

export function HowItWorks() {
  return (
    <section className="mk-section" aria-labelledby="how-title">
      <div className="mk-section__head">
        <h2 id="how-title">How it works</h2>
      </div>
      <ol className="mk-steps">
        {steps.map((step, index) => (
          <li key={step.title} className="mk-step">
            <span className="mk-step__number" aria-hidden="true">
              {index + 1}
            </span>
            <h3>{step.title}</h3>
            <p className="qw-muted">{step.text}</p>
          </li>
        ))}
      </ol>
    </section>
  );
}

export function WhyUseVpn() {
  return (
    <section className="mk-section" aria-labelledby="why-vpn-title">
      <div className="mk-section__head">
        <h2 id="why-vpn-title">Why you should use a VPN</h2>
      </div>
      <div className="qw-grid">
        <Card as="article">
          <h3 className="qw-card__title">On public Wi-Fi</h3>
          <p className="qw-muted">
            In cafés, airports and hotels, other people share your network. A VPN encrypts everything between your
            device and our server, so there is nothing for them to read.
          </p>
        </Card>
        <Card as="article">
          <h3 className="qw-card__title">At home</h3>
          <p className="qw-muted">
            Your internet provider can see which sites you connect to. Through Quietwire it sees one encrypted
            connection and nothing more.
          </p>
        </Card>
        <Card as="article">
          <h3 className="qw-card__title">Wherever you play</h3>
          <p className="qw-muted">
            The Gaming plan sends game traffic over low-latency routes with DDoS protection, so an attack on your
            address doesn’t end the match.
          </p>
        </Card>
      </div>
    </section>
  );
}

export function SecuritySection() {
  return (
    <section className="mk-section" aria-labelledby="security-title">
      <div className="mk-section__head">
        <h2 id="security-title">Security</h2>
        <p className="qw-muted">Few moving parts, each one well understood.</p>
      </div>
      <ul className="mk-features">
        <li>
          <h3>Modern cryptography</h3>
          <p className="qw-muted">
            WireGuard uses Curve25519, ChaCha20-Poly1305 and BLAKE2s. There are no cipher choices to get wrong and no
            legacy modes.
          </p>
        </li>
        <li>
          <h3>Strict no-logs policy</h3>
          <p className="qw-muted">
            We don’t record the sites you visit, your DNS queries or the content of your traffic.
          </p>
        </li>
        <li>
          <h3>One key per device</h3>
          <p className="qw-muted">
            Every device has its own keys. Suspend or remove a device from your dashboard and its access ends.
          </p>
        </li>
        <li>
          <h3>DDoS protection</h3>
          <p className="qw-muted">Our network absorbs floods aimed at your connection before they reach you.</p>
        </li>
      </ul>
    </section>
  );
}

export function SpeedCard() {
  return (
    <Card as="section" className="mk-section mk-speed-card" aria-labelledby="speed-title">
      <h2 id="speed-title">Speed</h2>
      <p className="qw-muted">
        WireGuard is lean, so little of your line’s speed is lost to the tunnel. What we measure on our network:
      </p>
      <SpeedFigures />
    </Card>
  );
}

const lowestPrice = formatUsd(Math.min(...plans.map((plan) => plan.priceCents)));

export function FinalCallToAction() {
  return (
    <section className="mk-cta" aria-labelledby="cta-title">
      <h2 id="cta-title">Ready when you are</h2>
      <p>
        Plans start at {lowestPrice}/month, with a {refundWindowDays}-day money-back guarantee.
      </p>
      <ButtonLink to="/pricing">See Plans</ButtonLink>
    </section>
  );
}
