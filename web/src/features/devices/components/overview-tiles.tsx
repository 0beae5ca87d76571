import { Alert, StatTile } from '../../../ui';
import { useOverview } from '../api/get-overview';

/** Spec §2 Overview: Devices (count), Connected (count), VPN Status (Online if one is connected, else Idle). */
export function OverviewTiles({ devicesPath }: { devicesPath: string }) {
  const overview = useOverview();
  if (overview.isError) return <Alert tone="error">We couldn’t load your devices. We’ll try again in a moment.</Alert>;
  const data = overview.data;
  return (
    <div className="devices-tiles" aria-busy={overview.isPending || undefined}>
      <StatTile label="Devices" value={data ? data.devices : '—'} to={devicesPath} />
      <StatTile label="Connected" value={data ? data.connected : '—'} hint="Handshake in the last 3 minutes" />
      <StatTile label="VPN Status" value={data ? <span className={data.vpn_status === 'Online' ? 'devices-online' : 'devices-idle'}>{data.vpn_status}</span> : '—'} />
    </div>
  );
}
