import { connectedWindowText } from '@qw/contracts';
import { Alert, StatTile } from '../../../ui';
import { useOrgOverview } from '../api/get-org-overview';
import { useOverview, type Overview } from '../api/get-overview';

/** Spec §2 personal Overview: the person's own devices. */
export function OverviewTiles({ devicesPath }: { devicesPath: string }) {
  const overview = useOverview();
  return (
    <OverviewTilesView
      devicesPath={devicesPath}
      data={overview.data}
      pending={overview.isPending}
      failed={overview.isError}
      failedText="We couldn’t load your devices. We’ll try again in a moment."
    />
  );
}

/** Spec §2 business Overview: the organization's devices (a member's own), VPN Status Online if any is connected. */
export function OrgOverviewTiles({ orgId, devicesPath }: { orgId: string; devicesPath: string }) {
  const overview = useOrgOverview(orgId);
  return (
    <OverviewTilesView
      devicesPath={devicesPath}
      data={overview.data}
      pending={overview.isPending}
      failed={overview.isError}
      failedText="We couldn’t load the organization’s devices. We’ll try again in a moment."
    />
  );
}

/** Devices (count), Connected (count), VPN Status (Online if one is connected, else Idle). */
function OverviewTilesView({
  devicesPath,
  data,
  pending,
  failed,
  failedText,
}: {
  devicesPath: string;
  data: Overview | undefined;
  pending: boolean;
  failed: boolean;
  failedText: string;
}) {
  if (failed && !data) return <Alert tone="error">{failedText}</Alert>;
  return (
    <div className="devices-tiles" aria-busy={pending || undefined}>
      <StatTile label="Devices" value={data ? data.devices : '—'} to={devicesPath} />
      <StatTile
        label="Connected"
        value={data ? data.connected : '—'}
        hint={`Handshake in the last ${connectedWindowText}`}
      />
      <StatTile
        label="VPN Status"
        value={
          data ? (
            <span className={data.vpn_status === 'Online' ? 'devices-online' : 'devices-idle'}>{data.vpn_status}</span>
          ) : (
            '—'
          )
        }
      />
    </div>
  );
}
