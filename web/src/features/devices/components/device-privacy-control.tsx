import { useEffect, useRef, useState } from 'react';
import { failureMessage, hasErrorCode } from '../../../lib/api-client';
import { Button } from '../../../ui';
import type { DeviceRow } from '../api/get-devices';
import { useSetDevicePrivacy } from '../api/set-device-privacy';
import { privacyBody, privacyChoiceOf, samePrivacyChoice, type PrivacyChoice } from '../utils/privacy-choice';
import { PrivacyFields } from './privacy-fields';

/**
 * Issue #25: a device's content blocking and split tunnel, changed on its details. Both live in
 * the device's configuration (the DNS line names the resolver of its blocking, AllowedIPs its
 * split), so nothing changes on the device until it has the new one: the control says so as soon
 * as the choice differs, and again once it is saved.
 */
export function DevicePrivacyControl({ device }: { device: DeviceRow }) {
  const saved = privacyChoiceOf(device);
  const [choice, setChoice] = useState<PrivacyChoice>(saved);
  const [said, setSaid] = useState<{ tone: 'error' | 'info'; text: string } | null>(null);
  const [routesError, setRoutesError] = useState<string | undefined>();
  const save = useSetDevicePrivacy();
  const changed = !samePrivacyChoice(choice, saved);
  // The list refreshes by itself: a choice saved elsewhere replaces this one unless it is being edited.
  const savedKey = JSON.stringify(saved);
  const lastSaved = useRef(saved);
  useEffect(() => {
    const next: PrivacyChoice = JSON.parse(savedKey);
    setChoice((current) => (samePrivacyChoice(current, lastSaved.current) ? next : current));
    lastSaved.current = next;
  }, [savedKey]);
  const newConfig = device.client_keys
    ? 'Its key was made in a browser: use “Request key” to get a configuration with this.'
    : 'Download the config again or scan the new QR code on the device for this to take effect.';

  function onSave() {
    setRoutesError(undefined);
    save.mutate(
      { id: device.id, ...privacyBody(choice) },
      {
        onSuccess: ({ device: after, config_changed }) => {
          setChoice(privacyChoiceOf(after));
          setSaid({ tone: 'info', text: config_changed ? `Saved. ${newConfig}` : 'Saved. Nothing changed.' });
        },
        onError: (failure) => {
          const text = failureMessage(failure, 'We couldn’t save the privacy settings. Please try again.');
          if (hasErrorCode(failure, 'invalid_routes')) setRoutesError(text);
          else setSaid({ tone: 'error', text });
        },
      },
    );
  }

  return (
    <div className="devices-privacy-control" data-testid="device-privacy">
      <PrivacyFields
        idPrefix={`privacy-${device.id}`}
        label={`for ${device.name}`}
        value={choice}
        onChange={(next) => {
          setChoice(next);
          setSaid(null);
          setRoutesError(undefined);
        }}
        disabled={save.isPending}
        routesError={routesError}
      />
      <div className="devices-privacy-control__line">
        <Button
          size="small"
          variant="secondary"
          disabled={!changed}
          busy={save.isPending}
          busyText="Saving…"
          onClick={onSave}
          aria-label={`Save privacy settings of ${device.name}`}
        >
          Save
        </Button>
        {changed && !save.isPending && (
          <p className="qw-small qw-muted" data-testid="privacy-change-note">
            The device’s configuration changes with this. {newConfig}
          </p>
        )}
      </div>
      {said && (
        <p
          className={said.tone === 'error' ? 'devices-error qw-small' : 'qw-small'}
          role={said.tone === 'error' ? 'alert' : 'status'}
          data-testid="privacy-answer"
        >
          {said.text}
        </p>
      )}
    </div>
  );
}
