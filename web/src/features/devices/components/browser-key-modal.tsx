import { useEffect, useMemo, useState } from 'react';
import QRCode from 'qrcode';
import { Button, buttonClassName } from '../../../ui';
import type { BrowserKeyConfig } from '../api/browser-key-config';

/**
 * The configuration of a device whose private key was made in this browser: shown once (the
 * server never had the key, so it cannot show it again), with a download and a QR code.
 */
export function BrowserKeyModal({
  config,
  deviceName,
  onClose,
}: {
  config: BrowserKeyConfig | null;
  deviceName: string;
  onClose: () => void;
}) {
  const [qr, setQr] = useState<string | null>(null);
  const href = useMemo(
    () => (config ? URL.createObjectURL(new Blob([config.config], { type: 'text/plain' })) : null),
    [config],
  );

  useEffect(() => {
    setQr(null);
    if (!config) return;
    let current = true;
    QRCode.toDataURL(config.config, { errorCorrectionLevel: 'M', margin: 2, width: 512 }).then(
      (url) => current && setQr(url),
    );
    return () => {
      current = false;
    };
  }, [config]);

  useEffect(
    () => () => {
      if (href) URL.revokeObjectURL(href);
    },
    [href],
  );

  if (!config) return null;
  return (
    <div className="devices-setup" role="dialog" aria-modal="true" aria-labelledby="browser-key-title">
      <div className="devices-setup__panel">
        <h2 id="browser-key-title">{deviceName}: save this configuration now</h2>
        <p>
          Its private key was made in this browser and never left it. Quietwire cannot show this file again; if you lose
          it, use “Request key”.
        </p>
        <div className="devices-setup__body">
          <div className="devices-setup__qr">
            {qr ? (
              <img src={qr} alt={`QR code of the WireGuard configuration for ${deviceName}`} width={320} height={320} />
            ) : (
              <div className="devices-setup__qr-placeholder" aria-hidden="true" />
            )}
          </div>
          <div className="qw-stack">
            {href && (
              <a className={buttonClassName({})} href={href} download={config.fileName}>
                Download {config.fileName}
              </a>
            )}
            <section aria-label="Configuration file">
              <pre className="devices-config">{config.config}</pre>
            </section>
          </div>
        </div>
        <Button variant="secondary" onClick={onClose} autoFocus>
          I saved it
        </Button>
      </div>
    </div>
  );
}
