import { formatDateTime } from '../../../lib/format';
import { Badge, QueryFailure, Skeleton } from '../../../ui';
import { type PublicCity, type PublicRegion, usePublicServers } from '../api/get-public-servers';
import './marketing.css';

const loadWords: Record<PublicCity['load'], string> = { low: 'Low', medium: 'Medium', high: 'High' };

/**
 * The public /servers page's body (issue #23): one section per region with its cities, each Up or
 * Down, how loaded it is and whether it carries the Gaming plan's routes. Refreshes every 30 s.
 */
export function ServerLocations() {
  const servers = usePublicServers();

  if (servers.isPending)
    return (
      <div className="mk-locations" aria-busy="true">
        <p className="qw-visually-hidden" role="status">
          Loading the server list…
        </p>
        <Skeleton block />
        <Skeleton block />
        <Skeleton block />
      </div>
    );
  if (servers.isError && !servers.data)
    return (
      <QueryFailure
        title="The server list did not load."
        message="Check your connection, then try again. Your VPN connection does not depend on this page."
        onRetry={() => void servers.refetch()}
        retrying={servers.isFetching}
      />
    );

  const regions = servers.data.regions;
  const cities = regions.reduce((sum, region) => sum + region.cities.length, 0);
  return (
    <div className="mk-locations">
      <p className="qw-small qw-muted">
        {servers.isError
          ? `The latest refresh failed; this is the status of ${formatDateTime(new Date(servers.dataUpdatedAt).toISOString())}.`
          : `Status of ${formatDateTime(new Date(servers.dataUpdatedAt).toISOString())}, refreshed every 30 seconds.`}{' '}
        Load is how full a city’s servers are: low under half, medium under 80 %, high above that.
      </p>
      {cities === 0 ? (
        <p className="mk-locations__empty">No servers are listed right now. Check again in a few minutes.</p>
      ) : (
        regions.map((region) => <RegionSection key={region.id} region={region} />)
      )}
    </div>
  );
}

function RegionSection({ region }: { region: PublicRegion }) {
  const titleId = `region-${region.id}`;
  const up = region.cities.filter((city) => city.status === 'up').length;
  return (
    <section className="mk-section mk-region" aria-labelledby={titleId}>
      <div className="mk-section__head">
        <h2 id={titleId}>{region.label}</h2>
        <p className="qw-muted">
          {region.cities.length === 0
            ? 'No servers here right now.'
            : `${up} of ${region.cities.length} ${region.cities.length === 1 ? 'city' : 'cities'} up.`}
        </p>
      </div>
      {region.cities.length > 0 && (
        <ul className="mk-cities">
          {region.cities.map((city) => (
            <CityCard key={city.city} regionId={region.id} city={city} />
          ))}
        </ul>
      )}
    </section>
  );
}

function CityCard({ regionId, city }: { regionId: string; city: PublicCity }) {
  const nameId = `city-${regionId}-${city.city.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <li className="qw-card mk-city" aria-labelledby={nameId}>
      <div className="mk-city__head">
        <h3 id={nameId} className="mk-city__name">
          {city.city}
        </h3>
        {city.gaming && <Badge tone="accent">Gaming</Badge>}
      </div>
      <dl className="mk-city__facts">
        <div>
          <dt className="qw-small qw-muted">Status</dt>
          <dd>
            <Badge tone={city.status === 'up' ? 'success' : 'danger'} dot>
              {city.status === 'up' ? 'Up' : 'Down'}
            </Badge>
          </dd>
        </div>
        <div>
          <dt className="qw-small qw-muted">Load</dt>
          <dd>
            <span className={`mk-load mk-load--${city.load}`} aria-hidden="true">
              <span />
              <span />
              <span />
            </span>
            {loadWords[city.load]}
          </dd>
        </div>
      </dl>
    </li>
  );
}
