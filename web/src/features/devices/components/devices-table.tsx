import { useState } from 'react';
import { platformLabels, type Platform } from '@qw/contracts';
import { isApiError } from '../../../lib/api-client';
import { Alert, Badge, Button, buttonClassName, Modal, Table, type TableColumn } from '../../../ui';
import { getConfigLink } from '../api/get-config-link';
import { useDevices, type DeviceRow } from '../api/get-devices';
import { useRemoveDevice } from '../api/remove-device';
import { useRequestKey } from '../api/request-key';
import { useUpdateDevice } from '../api/update-device';
import { DeviceNameCell } from './device-name-cell';
import { DeviceSetupModal } from './device-setup-modal';
import { generateKeyPair } from '@qw/wireguard/keys';
import { assembleConfig, type BrowserKeyConfig } from '../api/browser-key-config';
import { BrowserKeyModal } from './browser-key-modal';

export const keyRequestedMessage = 'Key request submitted. Check your email shortly.';

/**
 * Spec §2 Devices table: Name (edited in place), Platform, Active (Yes/No), Connected, and the
 * actions Config (the file, in a new tab), Suspend or Activate, Remove, Request key.
 */
export function DevicesTable() {
  const devices = useDevices();
  const update = useUpdateDevice();
  const remove = useRemoveDevice();
  const requestKey = useRequestKey();
  const [error, setError] = useState<string | null>(null);
  const [removing, setRemoving] = useState<DeviceRow | null>(null);
  const [showing, setShowing] = useState<DeviceRow | null>(null);
  const [browserConfig, setBrowserConfig] = useState<{ name: string; config: BrowserKeyConfig } | null>(null);

  const fail = (failure: unknown, fallback: string) => setError(isApiError(failure) ? failure.message : fallback);

  /** A new tab carries no token: open it at once (popup blockers allow that), then point it at a one-minute link. */
  async function openConfig(device: DeviceRow) {
    const tab = window.open('', '_blank');
    try {
      const link = await getConfigLink(device.id);
      if (tab) tab.location.href = link.url;
      else window.location.assign(link.url);
    } catch (failure) {
      tab?.close();
      fail(failure, 'We couldn’t open the configuration. Please try again.');
    }
  }

  /** A device whose key the browser made gets its new key from the browser too, shown once. */
  function onRequestKey(device: DeviceRow) {
    const keys = device.client_keys ? generateKeyPair() : null;
    requestKey.mutate({ id: device.id, ...(keys ? { publicKey: keys.publicKey } : {}) }, {
      onSuccess: () => {
        window.alert(keyRequestedMessage);
        if (keys) {
          assembleConfig(device.id, device.name, keys.privateKey).then(
            (config) => setBrowserConfig({ name: device.name, config }),
            (failure) => fail(failure, 'The new key is in place, but its configuration could not be assembled. Try “Request key” again.'),
          );
        }
      },
      onError: (failure) => window.alert(`Failed: ${isApiError(failure) ? failure.message : String(failure)}`),
    });
  }

  const columns: TableColumn<DeviceRow>[] = [
    { key: 'name', header: 'Name', cell: (d) => <DeviceNameCell key={`${d.id}-${d.name}`} id={d.id} name={d.name} onError={setError} />, sortValue: (d) => d.name },
    { key: 'platform', header: 'Platform', cell: (d) => platformLabels[d.platform as Platform] ?? d.platform, sortValue: (d) => d.platform },
    { key: 'active', header: 'Active', cell: (d) => (d.is_active ? 'Yes' : <Badge tone="warning">No</Badge>), sortValue: (d) => (d.is_active ? 1 : 0) },
    { key: 'connected', header: 'Connected', cell: (d) => (d.is_connected ? <Badge tone="success" dot>Connected</Badge> : <span className="qw-muted">Not connected</span>), sortValue: (d) => (d.is_connected ? 1 : 0) },
    {
      key: 'actions',
      header: 'Actions',
      cell: (d) => (
        <div className="devices-actions">
          {d.client_keys ? <span className="qw-muted qw-small" title="Its private key is only in the browser that made it">Key in your browser</span> : <>
          <a className={buttonClassName({ variant: 'secondary', size: 'small' })} href={`/api/device/${d.id}/config`} target="_blank" rel="noreferrer"
            onClick={(event) => { event.preventDefault(); void openConfig(d); }}>Config</a>
          <Button size="small" variant="secondary" onClick={() => setShowing(d)}>QR code</Button></>}
          <Button size="small" variant="secondary" disabled={update.isPending}
            onClick={() => update.mutate({ id: d.id, is_active: !d.is_active }, { onError: (failure) => fail(failure, 'We couldn’t change the device.') })}>
            {d.is_active ? 'Suspend' : 'Activate'}
          </Button>
          <Button size="small" variant="danger" onClick={() => setRemoving(d)}>Remove</Button>
          <Button size="small" variant="secondary" busy={requestKey.isPending && requestKey.variables?.id === d.id} busyText="Requesting…" onClick={() => onRequestKey(d)}>Request key</Button>
        </div>
      ),
    },
  ];

  return (
    <div className="qw-stack">
      {error && <Alert tone="error">{error}</Alert>}
      {devices.isError && <Alert tone="error">We couldn’t load your devices. We’ll try again in a moment.</Alert>}
      <Table caption="Your devices" captionHidden columns={columns} rows={devices.data} rowKey={(d) => d.id} loading={devices.isPending}
        emptyText="No devices yet. Add one above, then scan its QR code in the WireGuard app." />
      <Modal open={removing !== null} title={`Remove ${removing?.name ?? 'device'}?`} confirmLabel="Remove" confirmVariant="danger"
        busy={remove.isPending} busyText="Removing…" onCancel={() => setRemoving(null)}
        onConfirm={() => removing && remove.mutate(removing.id, {
          onSuccess: () => setRemoving(null),
          onError: (failure) => { setRemoving(null); fail(failure, 'We couldn’t remove the device.'); },
        })}>
        <p>Its configuration stops working at once and its address is released. This can’t be undone.</p>
      </Modal>
      <DeviceSetupModal device={showing} onClose={() => setShowing(null)} />
      <BrowserKeyModal config={browserConfig?.config ?? null} deviceName={browserConfig?.name ?? ''} onClose={() => setBrowserConfig(null)} />
    </div>
  );
}
