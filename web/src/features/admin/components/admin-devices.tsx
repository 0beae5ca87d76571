import { adminPageSizes, ownerSearchLimit } from '@qw/contracts';
import { useState } from 'react';
import { formatDate, formatDateTime } from '../../../lib/format';
import { Alert, Badge, Button, Modal, Table, type TableColumn, type TableSort } from '../../../ui';
import { type AdminDeviceAction, useDeviceAction } from '../api/device-action';
import { type AdminDevice, type AdminDevicesQuery, useAdminDevices } from '../api/get-devices';
import { useOrganizations } from '../api/get-organizations';
import { useServers } from '../api/get-servers';
import { serverSort } from '../format';
import { FilterSelect, LoadFailure, Pager, SearchForm, SortSelect } from './list-controls';

const sortKeys = ['name', 'created_at'] as const;
const defaultSort: TableSort = { key: 'created_at', direction: 'descending' };
const yesNo = [
  { value: 'true', label: 'Yes' },
  { value: 'false', label: 'No' },
] as const;

type Filters = { q: string; node: string; org: string; connected: string; active: string };
const noFilters: Filters = { q: '', node: '', org: '', connected: '', active: '' };

/** Spec §8: an action the server did not accept. No retry. */
export const actionFailedText = 'Action failed';

/** Who holds a device off (issue #20), as the console says it: only an operator lifts an operator's suspension. */
const suspendedByForOperators = {
  person: 'Suspended by its person',
  organization: 'Suspended by its organization',
  operator: 'Suspended by an operator',
} as const;

/**
 * Spec §2 Devices: every device with its owner, organization, node, active and connected; row
 * actions activate, suspend and revoke_keys (spec §7 POST /api/admin-device); the list reloads
 * after a change (spec §4). Searched, filtered and paged on the server.
 */
export function AdminDevicesPanel() {
  const [filters, setFilters] = useState<Filters>(noFilters);
  const [sort, setSort] = useState<TableSort>(defaultSort);
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState<number>(adminPageSizes.default);
  const [failed, setFailed] = useState(false);
  const [revoking, setRevoking] = useState<AdminDevice | null>(null);

  const query: AdminDevicesQuery = {
    ...(filters.q ? { q: filters.q } : {}),
    ...(filters.node ? { node: filters.node } : {}),
    ...(filters.org ? { org: filters.org } : {}),
    ...(filters.connected ? { connected: filters.connected === 'true' } : {}),
    ...(filters.active ? { active: filters.active === 'true' } : {}),
    ...serverSort(sort, sortKeys),
    page,
    per_page: perPage,
  };
  const devices = useAdminDevices(query);
  const servers = useServers();
  const organizations = useOrganizations({ sort: 'name', dir: 'asc', per_page: adminPageSizes.max });
  const action = useDeviceAction();

  function filter(change: Partial<Filters>) {
    setFilters((current) => ({ ...current, ...change }));
    setPage(1);
  }

  async function run(body: AdminDeviceAction) {
    setFailed(false);
    try {
      await action.mutateAsync(body);
      return true;
    } catch {
      setFailed(true);
      return false;
    }
  }

  const busyOn = (device: AdminDevice, name: AdminDeviceAction['action']) =>
    action.isPending && action.variables?.deviceId === device.id && action.variables.action === name;

  const columns: TableColumn<AdminDevice>[] = [
    {
      key: 'name',
      header: 'Device',
      sortable: true,
      rowHeader: true,
      cell: (device) => (
        <span className="admin-cell-stack">
          <span className="admin-nowrap">{device.name}</span>
          <span className="qw-small qw-muted">{device.platform}</span>
        </span>
      ),
    },
    {
      key: 'owner',
      header: 'Owner',
      cell: (device) => (
        <span className="admin-cell-stack">
          <span className="admin-break">{device.owner.email}</span>
          {device.owner.full_name && <span className="qw-small qw-muted">{device.owner.full_name}</span>}
        </span>
      ),
    },
    { key: 'org', header: 'Organization', cell: (device) => device.organization?.name ?? 'Personal' },
    { key: 'node', header: 'Node', cell: (device) => device.node?.name ?? 'Not placed' },
    {
      key: 'active',
      header: 'Active',
      cell: (device) => (
        <span className="admin-cell-stack">
          {device.is_active ? <Badge tone="success">Yes</Badge> : <Badge tone="warning">No</Badge>}
          {!device.is_active && device.suspended_by && (
            <span className="qw-small qw-muted">{suspendedByForOperators[device.suspended_by]}</span>
          )}
          {!device.has_keys && <span className="qw-small qw-muted">Keys revoked</span>}
        </span>
      ),
    },
    {
      key: 'connected',
      header: 'Connected',
      cell: (device) => (
        <span className="admin-cell-stack">
          {device.is_connected ? (
            <Badge tone="success" dot>
              Online
            </Badge>
          ) : (
            <Badge tone="neutral">Idle</Badge>
          )}
          <span className="qw-small qw-muted">
            {device.latest_handshake ? `Handshake ${formatDateTime(device.latest_handshake)}` : 'No handshake yet'}
          </span>
        </span>
      ),
    },
    {
      key: 'created_at',
      header: 'Created',
      sortable: true,
      className: 'admin-nowrap',
      cell: (device) => formatDate(device.created_at),
    },
    {
      key: 'actions',
      header: 'Actions',
      cell: (device) => (
        <div className="admin-actions">
          {device.is_active ? (
            <Button
              variant="secondary"
              size="small"
              busy={busyOn(device, 'suspend')}
              busyText="Suspending…"
              disabled={action.isPending}
              aria-label={`Suspend ${device.name}`}
              onClick={() => void run({ action: 'suspend', deviceId: device.id })}
            >
              Suspend
            </Button>
          ) : (
            <Button
              variant="secondary"
              size="small"
              busy={busyOn(device, 'activate')}
              busyText="Activating…"
              disabled={action.isPending}
              aria-label={`Activate ${device.name}`}
              onClick={() => void run({ action: 'activate', deviceId: device.id })}
            >
              Activate
            </Button>
          )}
          <Button
            variant="secondary"
            size="small"
            disabled={action.isPending || !device.has_keys}
            aria-label={`Revoke keys of ${device.name}`}
            onClick={() => setRevoking(device)}
          >
            Revoke keys
          </Button>
        </div>
      ),
    },
  ];

  const nodeOptions = (servers.data?.servers ?? []).map((server) => ({ value: server.id, label: server.name }));
  const orgOptions = (organizations.data?.rows ?? []).map((org) => ({ value: org.id, label: org.name }));

  return (
    <div className="admin-list">
      <div className="admin-toolbar">
        <SearchForm
          label="Search devices"
          placeholder="Device or owner email"
          value={filters.q}
          onSearch={(q) => filter({ q })}
        />
        <div className="admin-filters">
          <FilterSelect label="Node" value={filters.node} options={nodeOptions} onChange={(node) => filter({ node })} />
          <FilterSelect
            label="Organization"
            value={filters.org}
            options={orgOptions}
            onChange={(org) => filter({ org })}
          />
          <FilterSelect
            label="Connected"
            value={filters.connected}
            options={yesNo}
            onChange={(connected) => filter({ connected })}
          />
          <FilterSelect
            label="Active"
            value={filters.active}
            options={yesNo}
            onChange={(active) => filter({ active })}
          />
          <SortSelect
            label="Sort devices"
            value={sort}
            options={[
              { value: 'created_at', label: 'Created' },
              { value: 'name', label: 'Name' },
            ]}
            onChange={(next) => {
              setSort(next);
              setPage(1);
            }}
          />
        </div>
      </div>
      {failed && (
        <Alert tone="error" title={actionFailedText}>
          The server did not make the change. The list shows each device as it is now.
        </Alert>
      )}
      {devices.data?.owners_limited && (
        <Alert tone="info" title="This search matches many people.">
          Devices are shown for names that match and for the first {ownerSearchLimit.toLocaleString('en-US')} people
          whose e-mail matches. Narrow the search to find the others.
        </Alert>
      )}
      {devices.isError && !devices.data ? (
        <LoadFailure
          title="The devices did not load."
          error={devices.error}
          onRetry={() => void devices.refetch()}
          retrying={devices.isFetching}
        />
      ) : (
        <Table
          caption="Devices"
          captionHidden
          columns={columns}
          rows={devices.data?.rows}
          rowKey={(device) => device.id}
          loading={devices.isPending}
          emptyText={Object.values(filters).some(Boolean) ? 'No device matches.' : 'No devices yet.'}
          sort={sort}
          onSortChange={(next) => {
            setSort(next);
            setPage(1);
          }}
          stacked
        />
      )}
      <Pager
        label="devices"
        page={devices.data}
        busy={devices.isFetching}
        onPage={setPage}
        onPerPage={(size) => {
          setPerPage(size);
          setPage(1);
        }}
      />
      <Modal
        open={revoking !== null}
        title="Revoke this device's keys?"
        confirmLabel="Revoke keys"
        confirmVariant="danger"
        busy={action.isPending}
        busyText="Revoking…"
        onCancel={() => setRevoking(null)}
        onConfirm={async () => {
          if (!revoking) return;
          await run({ action: 'revoke_keys', deviceId: revoking.id });
          setRevoking(null);
        }}
      >
        <p>
          {revoking?.name} ({revoking?.owner.email}) leaves its node at once and cannot connect until its owner asks for
          a new key.
        </p>
      </Modal>
    </div>
  );
}
