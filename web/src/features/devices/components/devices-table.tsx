import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { platformLabels, type Platform, type SuspensionLevel } from '@qw/contracts';
import { isApiError } from '../../../lib/api-client';
import { Alert, Badge, Button, buttonClassName, Modal, Table, type TableColumn } from '../../../ui';
import { DeviceDetails } from './device-details';
import { connectionState, deviceStatus, heldText, offersConfig } from '../utils/device-facts';
import { getConfigLink } from '../api/get-config-link';
import { devicesKey, useDevices, type DeviceRow } from '../api/get-devices';
import { useRemoveDevice } from '../api/remove-device';
import { useRequestKey } from '../api/request-key';
import { useUpdateDevice } from '../api/update-device';
import { DeviceNameCell } from './device-name-cell';
import { DeviceSetupModal } from './device-setup-modal';
import { generateKeyPair } from '@qw/wireguard/keys';
import { assembleConfig, type BrowserKeyConfig } from '../api/browser-key-config';
import { BrowserKeyModal } from './browser-key-modal';
import { DeviceMovedNotice } from './device-moved-notice';
import { activationRefusal } from '../utils/suspension';

/** Spec §7 request_wg_key: the alert after a key request the server will email. */
export const keyRequestedMessage = 'Key request submitted. Check your email shortly.';
/** A key made in the browser is never emailed (the server never has it): the file is shown once instead. */
export const browserKeyRequestedMessage =
  'New key made in this browser. Its configuration is shown once and is not emailed: save it now.';
/** The server has the new file, but an unconfirmed address gets no mail. */
export const keyRequestedNotEmailedMessage =
  'Key request submitted. The new configuration is under Config and QR code; it can’t be emailed until the address is confirmed.';

/** Spec §7/§8: 'Failed: ' and the server's message, or 'Error: ' and what went wrong on the way. */
export function keyRequestFailedText(failure: unknown): string {
  return isApiError(failure) ? `Failed: ${failure.message}` : `Error: ${String(failure)}`;
}

type Notice = { tone: 'success' | 'error'; text: string };

/**
 * Spec §2 personal Devices: the person's own devices (org_id null), newest first. With
 * `activateBlocked` (no active plan) Activate is disabled and points to that explanation's element.
 */
export function DevicesTable({ activateBlocked }: { activateBlocked?: { describedBy: string } | undefined } = {}) {
  const devices = useDevices();
  return (
    <DeviceTable
      activateBlocked={activateBlocked}
      caption="Your devices"
      rows={devices.data}
      loading={devices.isPending}
      failed={devices.isError}
      failedText="We couldn’t load your devices. We’ll try again in a moment."
      emptyText="No devices yet. Add one above, then scan its QR code in the WireGuard app."
    />
  );
}

export type DeviceTableProps = {
  caption: string;
  rows: readonly DeviceRow[] | undefined;
  loading: boolean;
  failed: boolean;
  failedText: string;
  emptyText: string;
  /** Columns after Name (the business table's Assignee for owners and admins). */
  extraColumns?: readonly TableColumn<DeviceRow>[];
  /** No plan keeps devices on: Activate is disabled, described by the element with this id. */
  activateBlocked?: { describedBy: string } | undefined;
  /**
   * The level the viewer acts at on each device ('person' unless said): a suspension made at a
   * higher one disables Activate, described by the row's "Suspended by …" note.
   */
  viewerLevel?: (device: DeviceRow) => SuspensionLevel;
};

/**
 * Spec §2 Devices table (personal and business): Name (edited in place), Platform, Status (issue
 * #26: 'Active' or 'Suspended' and by whom, where the spec had Active Yes/No; issue #23: "Waiting for
 * room in Europe" while a drain holds it), Connected ("Server unreachable" when its server stopped
 * reporting), and the actions Config (the file, downloaded: no tab is left open), QR code, Request key on one line,
 * Suspend or Activate and, apart at the line's far end, Remove (asked once) on the next. A
 * suspended device offers no Config or QR code. Under each row, a moved device's notice
 * (`DeviceMovedNotice`) and its details (`DeviceDetails`).
 */
export function DeviceTable({
  caption,
  rows,
  loading,
  failed,
  failedText,
  emptyText,
  extraColumns = [],
  activateBlocked,
  viewerLevel = () => 'person',
}: DeviceTableProps) {
  const update = useUpdateDevice();
  const remove = useRemoveDevice();
  const requestKey = useRequestKey();
  const queryClient = useQueryClient();
  const [notice, setNotice] = useState<Notice | null>(null);
  const [removing, setRemoving] = useState<DeviceRow | null>(null);
  const [rekeying, setRekeying] = useState<DeviceRow | null>(null);
  const [showing, setShowing] = useState<DeviceRow | null>(null);
  const [browserConfig, setBrowserConfig] = useState<{ name: string; config: BrowserKeyConfig } | null>(null);

  // Each refresh of the list (every 10 s) renders again, so "2 min ago" stays current.
  const now = new Date();
  const setError = (text: string) => setNotice({ tone: 'error', text });
  const fail = (failure: unknown, fallback: string) => setError(isApiError(failure) ? failure.message : fallback);

  /**
   * The file is an attachment: fetched through a one-minute link (a download carries no token) and
   * saved from this page, so no empty tab is left behind.
   */
  async function downloadConfig(device: DeviceRow) {
    try {
      const link = await getConfigLink(device.id);
      const anchor = document.createElement('a');
      anchor.href = link.url;
      anchor.download = '';
      anchor.rel = 'noopener';
      document.body.append(anchor);
      anchor.click();
      anchor.remove();
      // The download clears a moved device's notice on the server: show that soon, not at the next refresh.
      if (device.config_changed_at)
        setTimeout(() => void queryClient.invalidateQueries({ queryKey: devicesKey }), 1000);
    } catch (failure) {
      fail(failure, 'We couldn’t download the configuration. Please try again.');
    }
  }

  /** Asked once in a modal (the old configuration stops working); a browser-made key is made here again, shown once. */
  function onRequestKey(device: DeviceRow) {
    const keys = device.client_keys ? generateKeyPair() : null;
    setNotice(null);
    requestKey.mutate(
      { id: device.id, ...(keys ? { publicKey: keys.publicKey } : {}) },
      {
        onSuccess: ({ emailed }) => {
          setRekeying(null);
          setNotice({
            tone: 'success',
            text: keys ? browserKeyRequestedMessage : emailed ? keyRequestedMessage : keyRequestedNotEmailedMessage,
          });
          if (keys) {
            assembleConfig(device.id, device.name, keys.privateKey).then(
              (config) => setBrowserConfig({ name: device.name, config }),
              (failure) =>
                fail(
                  failure,
                  'The new key is in place, but its configuration could not be assembled. Try “Request key” again.',
                ),
            );
          }
        },
        onError: (failure) => {
          setRekeying(null);
          setError(keyRequestFailedText(failure));
        },
      },
    );
  }

  const columns: TableColumn<DeviceRow>[] = [
    {
      key: 'name',
      header: 'Name',
      cell: (d) => <DeviceNameCell key={`${d.id}-${d.name}`} id={d.id} name={d.name} onError={setError} />,
      sortValue: (d) => d.name,
    },
    ...extraColumns,
    {
      key: 'platform',
      header: 'Platform',
      cell: (d) => platformLabels[d.platform as Platform] ?? d.platform,
      sortValue: (d) => d.platform,
    },
    {
      key: 'status',
      header: 'Status',
      cell: (d) => {
        const status = deviceStatus(d);
        const held = heldText(d);
        return (
          <div className="devices-suspension">
            {status.label === 'Active' ? <Badge tone="success">Active</Badge> : <Badge tone="warning">Suspended</Badge>}
            {status.by && (
              <span className="qw-small qw-muted" id={`suspension-${d.id}`} data-testid="suspension-note">
                {status.by}
              </span>
            )}
            {held && (
              <span className="qw-small devices-held" data-testid="device-held">
                {held}
              </span>
            )}
          </div>
        );
      },
      sortValue: (d) => (d.is_active ? 1 : 0),
    },
    {
      key: 'connected',
      header: 'Connected',
      cell: (d) => {
        const state = connectionState(d);
        if (state === 'Connected')
          return (
            <Badge tone="success" dot>
              Connected
            </Badge>
          );
        if (state === 'Server unreachable') return <Badge tone="warning">Server unreachable</Badge>;
        return <span className="qw-muted">Not connected</span>;
      },
      sortValue: (d) => connectionState(d),
    },
    {
      key: 'actions',
      header: 'Actions',
      className: 'devices-actions-cell',
      cell: (d) => {
        const heldAbove = activationRefusal(d, viewerLevel(d));
        const planBlocks = !d.is_active && Boolean(activateBlocked);
        return (
          <div className="devices-actions">
            <div className="devices-actions__line">
              {d.client_keys && (
                <span className="qw-muted qw-small" title="Its private key is only in the browser that made it">
                  Key in your browser
                </span>
              )}
              {offersConfig(d) && (
                <>
                  <a
                    className={buttonClassName({ variant: 'secondary', size: 'small' })}
                    href={`/api/device/${d.id}/config`}
                    download
                    onClick={(event) => {
                      event.preventDefault();
                      void downloadConfig(d);
                    }}
                  >
                    Config
                  </a>
                  <Button size="small" variant="secondary" onClick={() => setShowing(d)}>
                    QR code
                  </Button>
                </>
              )}
              <Button
                size="small"
                variant="secondary"
                busy={requestKey.isPending && requestKey.variables?.id === d.id}
                busyText="Requesting…"
                onClick={() => setRekeying(d)}
              >
                Request key
              </Button>
            </div>
            <div className="devices-actions__line">
              <Button
                size="small"
                variant="secondary"
                disabled={update.isPending || planBlocks || heldAbove !== null}
                title={heldAbove ?? undefined}
                aria-describedby={
                  heldAbove ? `suspension-${d.id}` : planBlocks ? activateBlocked?.describedBy : undefined
                }
                onClick={() =>
                  update.mutate(
                    { id: d.id, is_active: !d.is_active },
                    { onError: (failure) => fail(failure, 'We couldn’t change the device.') },
                  )
                }
              >
                {d.is_active ? 'Suspend' : 'Activate'}
              </Button>
              <Button size="small" variant="danger" className="devices-actions__remove" onClick={() => setRemoving(d)}>
                Remove
              </Button>
            </div>
          </div>
        );
      },
    },
  ];

  return (
    <div className="qw-stack">
      {notice && (
        <Alert tone={notice.tone} assertive>
          {notice.text}
        </Alert>
      )}
      {failed && <Alert tone="error">{failedText}</Alert>}
      <Table
        caption={caption}
        captionHidden
        columns={columns}
        rows={rows}
        rowKey={(d) => d.id}
        loading={loading}
        emptyText={emptyText}
        className="devices-table"
        rowDetails={(d) => (
          <>
            <DeviceMovedNotice device={d} onDownload={() => void downloadConfig(d)} onShowQr={() => setShowing(d)} />
            <DeviceDetails device={d} now={now} onError={setError} />
          </>
        )}
      />
      <Modal
        open={removing !== null}
        title={`Remove ${removing?.name ?? 'device'}?`}
        confirmLabel="Remove"
        confirmVariant="danger"
        busy={remove.isPending}
        busyText="Removing…"
        onCancel={() => setRemoving(null)}
        onConfirm={() =>
          removing &&
          remove.mutate(removing.id, {
            onSuccess: () => setRemoving(null),
            onError: (failure) => {
              setRemoving(null);
              fail(failure, 'We couldn’t remove the device.');
            },
          })
        }
      >
        <p>Its configuration stops working at once and its address is released. This can’t be undone.</p>
      </Modal>
      <Modal
        open={rekeying !== null}
        title={`Request a new key for ${rekeying?.name ?? 'this device'}?`}
        confirmLabel="Request key"
        confirmVariant="danger"
        busy={requestKey.isPending}
        busyText="Requesting…"
        onCancel={() => setRekeying(null)}
        onConfirm={() => rekeying && onRequestKey(rekeying)}
      >
        <p>
          The old configuration stops working as soon as the new key is in place: wherever it is installed, the tunnel
          disconnects until the new configuration replaces it.
        </p>
        <p>
          {rekeying?.client_keys
            ? 'The new private key is made in this browser and its configuration is shown here once. It is not emailed.'
            : 'The new configuration is emailed to a confirmed address, and Config and QR code here show it too.'}
        </p>
      </Modal>
      <DeviceSetupModal
        device={showing}
        onClose={() => {
          // Its QR code is its config too: a moved device's notice may be gone now.
          if (showing?.config_changed_at) void queryClient.invalidateQueries({ queryKey: devicesKey });
          setShowing(null);
        }}
      />
      <BrowserKeyModal
        config={browserConfig?.config ?? null}
        deviceName={browserConfig?.name ?? ''}
        onClose={() => setBrowserConfig(null)}
      />
    </div>
  );
}
