import { useEffect, useState } from 'react';
import { leakProtection, platformLabels, setupSteps, type Platform } from '@qw/contracts';
import { Alert, Button, buttonClassName } from '../../../ui';
import { getConfigLink, type ConfigLink } from '../api/get-config-link';
import type { DeviceRow } from '../api/get-devices';

/**
 * The QR code large enough to scan from a laptop screen, a download button and three steps for
 * the device's platform (DESIGN.md). Shown in a native dialog; the links last a minute.
 */
export function DeviceSetupModal({ device, onClose }: { device: DeviceRow | null; onClose: () => void }) {
  const [link, setLink] = useState<ConfigLink | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [killSwitch, setKillSwitch] = useState(false);

  useEffect(() => {
    setLink(null);
    setError(null);
    if (!device) return;
    let current = true;
    getConfigLink(device.id).then(
      (answer) => current && setLink(answer),
      () => current && setError('We couldn’t load this configuration. Close and try again.'),
    );
    return () => {
      current = false;
    };
  }, [device]);

  if (!device) return null;
  const platform = (device.platform in setupSteps ? device.platform : 'other') as Platform;
  return (
    <div className="devices-setup" role="dialog" aria-modal="true" aria-labelledby="devices-setup-title">
      <div className="devices-setup__panel">
        <h2 id="devices-setup-title">Set up {device.name}</h2>
        {error && <Alert tone="error">{error}</Alert>}
        <div className="devices-setup__body">
          <div className="devices-setup__qr">
            {link ? (
              <img
                src={link.qr_url}
                alt={`QR code of the WireGuard configuration for ${device.name}`}
                width={320}
                height={320}
              />
            ) : (
              <div className="devices-setup__qr-placeholder" aria-hidden="true" />
            )}
          </div>
          <div className="qw-stack">
            <h3>{platformLabels[platform]}</h3>
            <ol className="devices-setup__steps">
              {setupSteps[platform].map((step) => (
                <li key={step}>{step}</li>
              ))}
            </ol>
            <h4 className="devices-setup__subhead">Block traffic outside the tunnel</h4>
            <p className="qw-small">{leakProtection[platform]}</p>
            {platform === 'linux' && (
              <label className="devices-privacy__toggle">
                <input type="checkbox" checked={killSwitch} onChange={(event) => setKillSwitch(event.target.checked)} />
                Block traffic outside the tunnel
              </label>
            )}
            {link && (
              <a className={buttonClassName({})} href={withKillSwitch(link.url, killSwitch)} download>
                Download .conf
              </a>
            )}
            <p className="qw-muted qw-small">The file contains a private key. Do not share it.</p>
            <p className="qw-muted qw-small">
              It also holds a preshared key, a second secret WireGuard mixes into every handshake. It protects traffic
              recorded today from being decrypted by a future quantum computer only if the file reached this device over
              a connection that is itself post-quantum (HTTPS with the hybrid X25519MLKEM768 key exchange, which recent
              browsers offer and this site's proxy must accept); a file sent by email or read from the QR code on
              another screen gets no more than WireGuard's usual protection. A device added before preshared keys gets
              one with its next key: use Request key.
            </p>
          </div>
        </div>
        <Button variant="secondary" onClick={onClose} autoFocus>
          Close
        </Button>
      </div>
    </div>
  );
}

/** The download with wg-quick's kill switch in the file (Linux): the config route's `kill_switch` option. */
export function withKillSwitch(url: string, on: boolean): string {
  if (!on) return url;
  return `${url}${url.includes('?') ? '&' : '?'}kill_switch=true`;
}
