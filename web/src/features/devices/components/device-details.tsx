import { formatDate, formatDateTime } from '../../../lib/format';
import { Badge, CopyButton } from '../../../ui';
import type { DeviceRow } from '../api/get-devices';
import { connectionState, formatBytes, serverText, shortKey, timeAgo } from '../utils/device-facts';
import { DevicePrivacyControl } from './device-privacy-control';
import { DeviceRegionControl } from './device-region-control';
import { KeyRotationCell } from './key-rotation-cell';

/**
 * What a WireGuard user looks for about one device (issue #26), on the line under its row: when
 * it was added, its last handshake ("2 min ago"), its tunnel addresses, its server (city and region,
 * and "Server unreachable" when it stopped reporting), the region it asked for with "Change region"
 * (issue #23), what it received and sent in the last 24 hours, its public key (copyable), its
 * key rotation, and its content blocking and split tunnel (issue #25).
 */
export function DeviceDetails({
  device,
  now,
  onError,
}: {
  device: DeviceRow;
  now: Date;
  onError: (message: string) => void;
}) {
  return (
    <dl className="devices-details" aria-label={`Details of ${device.name}`} data-testid="device-details">
      <div>
        <dt>Created</dt>
        <dd>{formatDate(device.created_at)}</dd>
      </div>
      <div>
        <dt>Last handshake</dt>
        <dd title={device.latest_handshake ? formatDateTime(device.latest_handshake) : undefined}>
          {timeAgo(device.latest_handshake, now)}
        </dd>
      </div>
      <div>
        <dt>Tunnel addresses</dt>
        <dd className="qw-mono devices-details__addresses">
          {device.addresses.length > 0
            ? device.addresses.map((address) => <span key={address}>{address}</span>)
            : 'None yet'}
        </dd>
      </div>
      <div>
        <dt>Server</dt>
        <dd className="devices-details__server" data-testid="device-server">
          {serverText(device.node)}
          {connectionState(device) === 'Server unreachable' && <Badge tone="warning">Server unreachable</Badge>}
        </dd>
      </div>
      <div>
        <dt>Region</dt>
        <dd>
          <DeviceRegionControl device={device} />
        </dd>
      </div>
      <div>
        <dt>Last 24 h</dt>
        <dd data-testid="device-traffic">
          <span aria-hidden="true">↓ </span>
          {`${formatBytes(device.received_bytes_24h)} received`}
          <span aria-hidden="true"> · ↑</span> {`${formatBytes(device.sent_bytes_24h)} sent`}
        </dd>
      </div>
      <div>
        <dt>Public key</dt>
        <dd className="devices-details__key">
          {device.public_key ? (
            <>
              <code title={device.public_key}>{shortKey(device.public_key)}</code>
              <CopyButton text={device.public_key} label={`Copy public key of ${device.name}`} />
            </>
          ) : (
            'None (keys revoked)'
          )}
        </dd>
      </div>
      <div>
        <dt>Key rotation</dt>
        <dd>
          <KeyRotationCell device={device} onError={onError} />
        </dd>
      </div>
      <div className="devices-details__privacy">
        <dt>Privacy</dt>
        <dd>
          <DevicePrivacyControl device={device} />
        </dd>
      </div>
    </dl>
  );
}
