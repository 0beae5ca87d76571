import { keyRotationDays, keyRotationLabel, type KeyRotationDays } from '@qw/contracts';
import { isApiError } from '../../../lib/api-client';
import { formatDateTime } from '../../../lib/format';
import { Select } from '../../../ui';
import type { DeviceRow } from '../api/get-devices';
import { useSetKeyRotation } from '../api/set-key-rotation';

const options = [
  { value: 'off', label: keyRotationLabel(null) },
  ...keyRotationDays.map((days) => ({ value: String(days), label: keyRotationLabel(days) })),
];

/**
 * Scheduled key rotation of one device (issue #15): Off, every 30 or every 90 days, with the next
 * rotation's date, and, after one, until when the previous key still connects. A key made in the
 * browser cannot be rotated by the service: its person uses "Request key".
 */
export function KeyRotationCell({ device, onError }: { device: DeviceRow; onError: (message: string) => void }) {
  const update = useSetKeyRotation();
  if (device.client_keys) {
    return <span className="qw-muted qw-small">Rotate by hand with “Request key”</span>;
  }
  return (
    <div className="qw-stack qw-stack--sm">
      <Select
        aria-label={`Key rotation for ${device.name}`}
        options={options}
        value={device.key_rotation_days === null ? 'off' : String(device.key_rotation_days)}
        disabled={update.isPending || !device.public_key}
        onChange={(event) => {
          const value = event.target.value;
          update.mutate(
            { id: device.id, everyDays: value === 'off' ? null : (Number(value) as KeyRotationDays) },
            {
              onError: (failure) =>
                onError(isApiError(failure) ? failure.message : 'We couldn’t change the key rotation.'),
            },
          );
        }}
      />
      {device.next_key_rotation_at && (
        <span className="qw-muted qw-small">Next: {formatDateTime(device.next_key_rotation_at)}</span>
      )}
      {device.previous_key_expires_at && (
        <span className="qw-muted qw-small">
          Previous key works until {formatDateTime(device.previous_key_expires_at)}
        </span>
      )}
    </div>
  );
}
