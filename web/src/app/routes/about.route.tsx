import { AboutContent } from '../../features/marketing/components/about-content';
import { PageTitle } from '../../ui';

export default function AboutRoute() {
  return (
    <div className="qw-container qw-page">
      <PageTitle
        title="About"
        description="Why we built Quietwire, a WireGuard-only VPN: our story, principles, performance, business features and roadmap."
      />
      <header className="qw-page-head">
        <p className="qw-eyebrow">About</p>
        <h1>A VPN with fewer moving parts</h1>
        <p className="qw-lead">
          Quietwire is a WireGuard VPN for individuals, gamers and teams. This is why we built it and where it is going.
        </p>
      </header>
      <AboutContent />
    </div>
  );
}
