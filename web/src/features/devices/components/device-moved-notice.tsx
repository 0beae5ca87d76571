import { Alert, Button, buttonClassName } from '../../../ui';
import type { DeviceRow } from '../api/get-devices';
import { movedText, offersConfig } from '../utils/device-facts';

/**
 * Issue #23: on the row of a device that moved to another server (its region changed, or a drain
 * moved it), until its configuration is downloaded again (the download clears `config_changed_at`):
 * where it went and what to do, with Config and QR code right here.
 */
export function DeviceMovedNotice({
  device,
  onDownload,
  onShowQr,
}: {
  device: DeviceRow;
  onDownload: () => void;
  onShowQr: () => void;
}) {
  const text = movedText(device);
  if (!text) return null;
  return (
    <div className="devices-moved" data-testid="device-moved">
      <Alert tone="warning">
        <p>{text}</p>
        {offersConfig(device) && (
          <p className="devices-moved__actions">
            <a
              className={buttonClassName({ variant: 'primary', size: 'small' })}
              href={`/api/device/${device.id}/config`}
              download
              onClick={(event) => {
                event.preventDefault();
                onDownload();
              }}
            >
              Download config
            </a>
            <Button size="small" variant="secondary" onClick={onShowQr}>
              Show QR code
            </Button>
          </p>
        )}
      </Alert>
    </div>
  );
}
