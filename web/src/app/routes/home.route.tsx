import {
  ComparisonSection,
  FinalCallToAction,
  HowItWorks,
  SecuritySection,
  SpeedCard,
  WhyUseVpn,
} from '../../features/marketing/components/home-sections';
import { Hero } from '../../features/marketing/components/hero';
import { PageTitle } from '../../ui';

export default function HomeRoute() {
  return (
    <div className="qw-container qw-page">
      <PageTitle
        exact
        title="Quietwire — Private. Fast. Simple. WireGuard VPN"
        description="Quietwire is a WireGuard VPN with a strict no-logs policy, unlimited devices on Personal and Gaming, low-latency gaming routes and servers in North America, Europe and Asia."
      />
      <Hero />
      <ComparisonSection />
      <HowItWorks />
      <WhyUseVpn />
      <SecuritySection />
      <SpeedCard />
      <FinalCallToAction />
    </div>
  );
}
