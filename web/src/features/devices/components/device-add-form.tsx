import { useState, type FormEvent } from 'react';
import { AppError, normalizeDeviceName, type RegionChoice, validDeviceName } from '@qw/contracts';
import { isApiError } from '../../../lib/api-client';
import { Button } from '../../../ui';
import { generateKeyPair } from '@qw/wireguard/keys';
import { useCreateDevice } from '../api/create-device';
import { assembleConfig, type BrowserKeyConfig } from '../api/browser-key-config';
import { BrowserKeyModal } from './browser-key-modal';
import { DeviceNameAndPlatformFields } from './device-name-platform-fields';
import { browserCountry, CountryNote, RegionFields } from './region-fields';
import { regionBody } from '../utils/region-choice';
import { defaultPrivacyChoice, privacyBody } from '../utils/privacy-choice';
import { PrivacyOptions } from './privacy-options';

/**
 * Spec §2/§5: name and platform, and (issue #23) the region with, for Automatic, the person's country; Add is disabled while busy or while the name is empty; errors in red under the form.
 * Issue #25: content blocking and split tunnel, folded under "Privacy options" (none and all traffic unless opened).
 * `onAdded` learns whether the key was made in the browser: such a configuration is shown once, never emailed.
 */
export function DeviceAddForm({
  onAdded,
  blockedReason,
}: {
  onAdded?: (name: string, keyInBrowser: boolean) => void;
  /** Why no device can be added now (no active plan): Add is disabled and this says why. */
  blockedReason?: string | undefined;
}) {
  const [name, setName] = useState('');
  const [platform, setPlatform] = useState<string>('ios');
  const [region, setRegion] = useState<RegionChoice>('auto');
  const [country, setCountry] = useState(browserCountry);
  const [error, setError] = useState<string | null>(null);
  const [keyInBrowser, setKeyInBrowser] = useState(false);
  const [privacy, setPrivacy] = useState(defaultPrivacyChoice);
  const [shown, setShown] = useState<{ name: string; config: BrowserKeyConfig } | null>(null);
  const create = useCreateDevice();

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (create.isPending || blockedReason) return;
    let deviceName: string;
    try {
      // The contracts' rule, with the spec's 'Please enter a device name.' for an empty name.
      deviceName = validDeviceName(name);
    } catch (refusal) {
      if (!(refusal instanceof AppError)) throw refusal;
      setError(refusal.message);
      return;
    }
    setError(null);
    const keys = keyInBrowser ? generateKeyPair() : null;
    create.mutate(
      {
        name: deviceName,
        platform,
        ...regionBody(region, country),
        ...privacyBody(privacy),
        ...(keys ? { public_key: keys.publicKey } : {}),
      },
      {
        onSuccess: ({ device }) => {
          setName('');
          setPrivacy(defaultPrivacyChoice);
          onAdded?.(device.name, keys !== null);
          if (keys) {
            assembleConfig(device.id, device.name, keys.privateKey).then(
              (config) => setShown({ name: device.name, config }),
              () =>
                setError(
                  'The device was added, but its configuration could not be assembled. Use “Request key” to make a new one.',
                ),
            );
          }
        },
        onError: (failure) =>
          setError(isApiError(failure) ? failure.message : 'We couldn’t add the device. Please try again.'),
      },
    );
  }

  return (
    <form className="devices-add" onSubmit={onSubmit} noValidate aria-label="Add a device">
      <div className="devices-add__fields">
        <DeviceNameAndPlatformFields
          idPrefix="device"
          name={name}
          onNameChange={setName}
          platform={platform}
          onPlatformChange={setPlatform}
        />
        <RegionFields
          idPrefix="device"
          region={region}
          onRegionChange={setRegion}
          country={country}
          onCountryChange={setCountry}
        />
        <Button
          type="submit"
          busy={create.isPending}
          busyText="Adding…"
          disabled={create.isPending || !normalizeDeviceName(name) || Boolean(blockedReason)}
          aria-describedby={blockedReason ? 'device-add-blocked' : undefined}
        >
          Add
        </Button>
      </div>
      <CountryNote idPrefix="device" region={region} />
      {blockedReason && (
        <p className="qw-muted qw-small" id="device-add-blocked" data-testid="device-add-blocked">
          {blockedReason}
        </p>
      )}
      <PrivacyOptions idPrefix="device" value={privacy} onChange={setPrivacy} />
      <label className="devices-add__browser-key">
        <input type="checkbox" checked={keyInBrowser} onChange={(event) => setKeyInBrowser(event.target.checked)} />
        Make the private key in this browser (Quietwire never sees it; the file is shown once)
      </label>
      {error && (
        <p className="devices-error" role="alert">
          {error}
        </p>
      )}
      <BrowserKeyModal config={shown?.config ?? null} deviceName={shown?.name ?? ''} onClose={() => setShown(null)} />
    </form>
  );
}
