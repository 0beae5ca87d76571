import { orgDevicesPerUser, refundWindowDays } from '@qw/contracts';
import { ButtonLink, Card } from '../../../ui';
import { businessDeviceQuotas, businessUserCaps } from '../data/business-plans';
import { SpeedFigures } from './speed-figures';
import './marketing.css';

/** Spec §2 /about, section by section. */
export function AboutContent() {
  return (
    <div className="mk-about">
      <section className="mk-prose" aria-labelledby="story-title">
        <h2 id="story-title">Our story</h2>
        <p>
          Quietwire began with a small frustration: VPN apps that took too long to connect, asked for too much trust and
          said too little about what they kept. WireGuard showed that a VPN could be small, fast and easy to reason
          about. We built a service around it, and nothing else.
        </p>
      </section>

      <section className="mk-prose" aria-labelledby="building-title">
        <h2 id="building-title">What we are building</h2>
        <p>
          A WireGuard VPN for individuals, gamers and teams. You choose a plan, create devices in your dashboard and
          connect with a config file or a QR code. You see which devices are connected, and businesses manage their
          team’s devices in one place.
        </p>
      </section>

      <section aria-labelledby="problems-title" className="mk-about__block">
        <h2 id="problems-title">Problems we solve</h2>
        <div className="qw-grid mk-grid-4">
          <Card as="article">
            <h3 className="qw-card__title">Slow, fiddly connections</h3>
            <p className="qw-muted">
              WireGuard connects in seconds and reconnects on its own when you change networks.
            </p>
          </Card>
          <Card as="article">
            <h3 className="qw-card__title">Device limits</h3>
            <p className="qw-muted">
              Personal and Gaming include unlimited devices. Your phone, laptop and router all count as yours.
            </p>
          </Card>
          <Card as="article">
            <h3 className="qw-card__title">Opaque business pricing</h3>
            <p className="qw-muted">
              Business prices are published and set by device quota. No sales call to find out what it costs.
            </p>
          </Card>
          <Card as="article">
            <h3 className="qw-card__title">Lag in online games</h3>
            <p className="qw-muted">Gaming routes typically lower ping by 10-30%, with DDoS protection on top.</p>
          </Card>
        </div>
      </section>

      <section className="mk-prose" aria-labelledby="why-vpn-title">
        <h2 id="why-vpn-title">Why a VPN, at home and on public networks</h2>
        <p>
          <strong>At home,</strong> your internet provider can see which sites you connect to. Through Quietwire it sees
          one encrypted connection to our server.
        </p>
        <p>
          <strong>On public networks</strong> — cafés, airports, hotels — strangers share your Wi-Fi. A VPN encrypts
          everything between your device and us, so there is nothing for them to read or tamper with.
        </p>
      </section>

      <section className="mk-prose" aria-labelledby="different-title">
        <h2 id="different-title">What makes us different</h2>
        <ul>
          <li>WireGuard only: one modern protocol, no legacy fallbacks.</li>
          <li>No app of ours required: the official WireGuard app and a config file or QR code are enough.</li>
          <li>Unlimited devices on Personal and Gaming (fair use: up to 100 per account).</li>
          <li>Gaming-optimised low-latency routes.</li>
          <li>Business pricing you can read on the page, by device quota.</li>
        </ul>
      </section>

      <section className="mk-prose" aria-labelledby="principles-title">
        <h2 id="principles-title">Our principles</h2>
        <ul>
          <li>
            <strong>Keep no logs.</strong> What you do through Quietwire is yours.
          </li>
          <li>
            <strong>Say exactly what we claim.</strong> Figures come with units and with the conditions they depend on.
          </li>
          <li>
            <strong>Keep it simple.</strong> Fewer moving parts are easier to secure and easier to use.
          </li>
          <li>
            <strong>Price plainly.</strong> The price on the page is the price you pay.
          </li>
        </ul>
      </section>

      <section className="mk-prose" aria-labelledby="business-title">
        <h2 id="business-title">For businesses</h2>
        <ul>
          <li>Plans by device quota: {businessDeviceQuotas} devices.</li>
          <li>
            Up to {orgDevicesPerUser} devices per person, and up to {businessUserCaps} users depending on the plan.
          </li>
          <li>Admins add and revoke devices and manage employee access from one dashboard.</li>
          <li>Role-based device management from Business 50.</li>
        </ul>
      </section>

      <section aria-labelledby="performance-title" className="mk-about__block">
        <h2 id="performance-title">Performance</h2>
        <SpeedFigures />
      </section>

      <section className="mk-prose" aria-labelledby="roadmap-title">
        <h2 id="roadmap-title">Roadmap</h2>
        <ul>
          <li>More server regions.</li>
          <li>Team roles and audit logs for Business.</li>
          <li>Self-service key rotation.</li>
          <li>Optional analytics.</li>
        </ul>
      </section>

      <section className="mk-prose" aria-labelledby="promise-title">
        <h2 id="promise-title">Support and our promise</h2>
        <p>
          Support answers by email, 24/7; live chat is in progress. If Quietwire isn’t right for you, tell us within{' '}
          {refundWindowDays} days of your purchase and we refund you in full.
        </p>
      </section>

      <section className="mk-cta" aria-labelledby="about-cta-title">
        <h2 id="about-cta-title">Find your plan</h2>
        <p>Personal and Gaming for you and your devices; Business for your team.</p>
        <div className="qw-cluster mk-cta__actions">
          <ButtonLink to="/pricing#personal">Personal and Gaming plans</ButtonLink>
          <ButtonLink to="/pricing#business" variant="secondary">
            Business plans
          </ButtonLink>
        </div>
      </section>
    </div>
  );
}
