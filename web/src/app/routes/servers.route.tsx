import { Link } from 'react-router-dom';
import { ServerLocations } from '../../features/marketing/components/server-locations';
import { PageTitle } from '../../ui';

/** Issue #23: the public list of regions and cities with live status. */
export default function ServersRoute() {
  return (
    <div className="qw-container qw-page">
      <PageTitle
        title="Servers"
        description="Where Quietwire's servers are: North America, Europe and Asia, each city with its live status and load."
      />
      <header className="qw-page-head">
        <p className="qw-eyebrow">Servers</p>
        <h1>Server locations</h1>
        <p className="qw-lead">
          Quietwire has servers in North America, Europe and Asia. Each city shows whether it is up and how busy it is
          right now. Cities marked Gaming carry the <Link to="/pricing#personal">Gaming plan</Link>’s low-latency
          routes.
        </p>
      </header>
      <ServerLocations />
    </div>
  );
}
