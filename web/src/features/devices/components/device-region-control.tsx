import { regionLabel, type RegionChoice } from '@qw/contracts';
import { useState } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { Button, Modal, Select } from '../../../ui';
import { useChangeDeviceRegion } from '../api/change-device-region';
import type { DeviceRow } from '../api/get-devices';
import { serverText } from '../utils/device-facts';
import { countryName, isRegionChoice, regionChoiceOptions, regionChoiceText } from '../utils/region-choice';
import { browserCountry } from './region-fields';

/**
 * Issue #23: the region a device asked for, and "Change region" (a select, then a confirmation).
 * A move gives the device a new server: the row then says to download its config again. A refusal
 * (no server of that region has room) is said here, under the control, with nothing changed.
 */
export function DeviceRegionControl({ device }: { device: DeviceRow }) {
  const change = useChangeDeviceRegion();
  const [pick, setPick] = useState<RegionChoice>(device.region_choice);
  const [confirming, setConfirming] = useState(false);
  const [said, setSaid] = useState<{ tone: 'error' | 'info'; text: string } | null>(null);
  // Automatic starts from the country the device was added with, else the browser's.
  const country = device.country ?? (browserCountry() || null);
  const target =
    pick === 'auto'
      ? country
        ? `the region nearest ${countryName(country)}`
        : 'the least busy region'
      : regionLabel(pick);

  function onConfirm() {
    change.mutate(
      { id: device.id, region: pick, ...(pick === 'auto' && country ? { country } : {}) },
      {
        onSuccess: ({ device: after, moved }) => {
          setConfirming(false);
          setSaid(
            moved
              ? null
              : { tone: 'info', text: `Its server, ${serverText(after.node)}, already fits: it stays there.` },
          );
        },
        onError: (failure) => {
          setConfirming(false);
          setPick(device.region_choice);
          setSaid({ tone: 'error', text: failureMessage(failure, 'We couldn’t change the region. Please try again.') });
        },
      },
    );
  }

  return (
    <div className="devices-region">
      <div className="devices-region__line">
        <Select
          aria-label={`Region of ${device.name}`}
          // Automatic names the country the device was added with: "Automatic (nearest to Germany)".
          options={regionChoiceOptions.map((option) =>
            option.value === 'auto' ? { ...option, label: regionChoiceText('auto', device.country) } : option,
          )}
          value={pick}
          disabled={change.isPending}
          onChange={(event) => {
            if (isRegionChoice(event.target.value)) setPick(event.target.value);
            setSaid(null);
          }}
        />
        <Button
          size="small"
          variant="secondary"
          disabled={pick === device.region_choice}
          busy={change.isPending}
          busyText="Moving…"
          onClick={() => setConfirming(true)}
        >
          Change region
        </Button>
      </div>
      {said && (
        <p
          className={said.tone === 'error' ? 'devices-error qw-small' : 'qw-small qw-muted'}
          role={said.tone === 'error' ? 'alert' : 'status'}
          data-testid="region-change-answer"
        >
          {said.text}
        </p>
      )}
      <Modal
        open={confirming}
        title={`Move ${device.name} to ${pick === 'auto' ? 'Automatic' : regionLabel(pick)}?`}
        confirmLabel="Change region"
        busy={change.isPending}
        busyText="Moving…"
        onCancel={() => setConfirming(false)}
        onConfirm={onConfirm}
      >
        <p>
          It gets a server in {target}: a new configuration with that server’s address and key. The device keeps its own
          key.
        </p>
        <p>
          After the move, download its configuration again. The old one works until the device connects with the new
          one, then stops.
        </p>
      </Modal>
    </div>
  );
}
