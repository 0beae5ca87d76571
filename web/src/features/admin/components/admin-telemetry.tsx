import { adminPageSizes } from '@qw/contracts';
import { useState } from 'react';
import { formatDateTime } from '../../../lib/format';
import { Badge, Table, type TableColumn, type TableSort } from '../../../ui';
import { useServers } from '../api/get-servers';
import { useHideTestAccounts } from '../hide-test-accounts';
import { type AdminNodeSummary, type AdminTelemetryRow, useTelemetry } from '../api/get-telemetry';
import { formatBytes, formatCount, formatLatency, serverSort } from '../format';
import { FilterSelect, LoadFailure, Measured, Pager, SortSelect } from './list-controls';

const sortKeys = ['ts', 'rx_bytes', 'tx_bytes', 'latency_ms'] as const;
const defaultSort: TableSort = { key: 'ts', direction: 'descending' };

/** Why a figure is '—': the node's WireGuard does not report it (never shown as a made-up zero). */
export const unmeasuredReasons = {
  packets: 'This node cannot measure packets.',
  latency: 'This node cannot measure latency.',
  endpoint: 'No endpoint reported yet.',
} as const;

const packets = (value: number | null) => (value === null ? null : `${formatCount(value)} packets`);

const telemetryColumns: TableColumn<AdminTelemetryRow>[] = [
  { key: 'device', header: 'Device', rowHeader: true, cell: (row) => row.device_name },
  { key: 'node', header: 'Node', cell: (row) => row.node?.name ?? 'Not placed' },
  {
    key: 'rx_bytes',
    header: 'Received',
    type: 'number',
    sortable: true,
    cell: (row) => (
      <span className="admin-cell-stack">
        <span>{formatBytes(row.rx_bytes)}</span>
        <span className="qw-small qw-muted">
          <Measured value={packets(row.rx_packets)} reason={unmeasuredReasons.packets} />
        </span>
      </span>
    ),
  },
  {
    key: 'tx_bytes',
    header: 'Sent',
    type: 'number',
    sortable: true,
    cell: (row) => (
      <span className="admin-cell-stack">
        <span>{formatBytes(row.tx_bytes)}</span>
        <span className="qw-small qw-muted">
          <Measured value={packets(row.tx_packets)} reason={unmeasuredReasons.packets} />
        </span>
      </span>
    ),
  },
  {
    key: 'latency_ms',
    header: 'Latency',
    type: 'number',
    sortable: true,
    cell: (row) => (
      <Measured
        value={row.latency_ms === null ? null : formatLatency(row.latency_ms)}
        reason={unmeasuredReasons.latency}
      />
    ),
  },
  {
    key: 'endpoint',
    header: 'Endpoint',
    cell: (row) => (
      <span className="qw-mono">
        <Measured value={row.endpoint} reason={unmeasuredReasons.endpoint} />
      </span>
    ),
  },
  {
    key: 'connected',
    header: 'Connected',
    cell: (row) =>
      row.is_connected ? (
        <Badge tone="success" dot>
          Online
        </Badge>
      ) : (
        <Badge tone="neutral">Idle</Badge>
      ),
  },
  { key: 'ts', header: 'Time', sortable: true, cell: (row) => formatDateTime(row.ts) },
];

const nodeColumns: TableColumn<AdminNodeSummary>[] = [
  { key: 'node', header: 'Node', rowHeader: true, cell: (row) => row.node.name },
  { key: 'devices', header: 'Devices', type: 'number', cell: (row) => formatCount(row.devices) },
  { key: 'connected', header: 'Connected', type: 'number', cell: (row) => formatCount(row.connected) },
  { key: 'rx', header: 'Received', type: 'number', cell: (row) => formatBytes(row.rx_bytes) },
  { key: 'tx', header: 'Sent', type: 'number', cell: (row) => formatBytes(row.tx_bytes) },
  {
    key: 'latency',
    header: 'Median latency',
    type: 'number',
    cell: (row) => (
      <Measured
        value={row.latency_ms === null ? null : formatLatency(row.latency_ms)}
        reason={unmeasuredReasons.latency}
      />
    ),
  },
];

/** What the device rows count, so they are not read as the Overview's devices or the Servers' peers. */
export const telemetryRowsText =
  'One row per device with a key that a node has reported on. Devices never seen by a node and devices without a key have no row; suspended devices keep theirs.';
/** Said on the page while "Hide test accounts" is on (issue #26): the rows and the per-node figures are customers' only. */
export const telemetryTestAccountsText = "Test accounts' devices are left out of the rows and the per-node figures.";

/** Spec §2 Telemetry: the latest telemetry per device, paged and sorted on the server, and a summary per node. */
export function AdminTelemetryPanel() {
  const [node, setNode] = useState('');
  const [connected, setConnected] = useState('');
  const [sort, setSort] = useState<TableSort>(defaultSort);
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState<number>(adminPageSizes.default);
  const telemetry = useTelemetry({
    ...(node ? { node } : {}),
    ...(connected ? { connected: connected === 'true' } : {}),
    ...serverSort(sort, sortKeys),
    page,
    per_page: perPage,
  });
  const data = telemetry.data;
  const hideTest = useHideTestAccounts();
  // Every node, whichever the summary lists under the current filter.
  const servers = useServers();
  const changeSort = (next: TableSort) => {
    setSort(next);
    setPage(1);
  };

  if (telemetry.isError && !data)
    return (
      <LoadFailure
        title="The telemetry did not load."
        error={telemetry.error}
        onRetry={() => void telemetry.refetch()}
        retrying={telemetry.isFetching}
      />
    );

  return (
    <div className="admin-list">
      {hideTest && <p className="qw-small qw-muted">{telemetryTestAccountsText}</p>}
      <section className="admin-section" aria-labelledby="admin-telemetry-nodes">
        <h2 id="admin-telemetry-nodes" className="admin-section__title">
          Per node
        </h2>
        <Table
          caption="Telemetry per node"
          captionHidden
          columns={nodeColumns}
          rows={data?.nodes}
          rowKey={(row) => row.node.id}
          loading={telemetry.isPending}
          emptyText="No node has reported yet."
          stacked
        />
      </section>
      <section className="admin-section" aria-labelledby="admin-telemetry-devices">
        <h2 id="admin-telemetry-devices" className="admin-section__title">
          Latest per device
        </h2>
        <p className="qw-small qw-muted">{telemetryRowsText}</p>
        <div className="admin-filters">
          <FilterSelect
            label="Node"
            value={node}
            options={(servers.data?.servers ?? []).map((server) => ({ value: server.id, label: server.name }))}
            onChange={(value) => {
              setNode(value);
              setPage(1);
            }}
          />
          <FilterSelect
            label="Connected"
            value={connected}
            options={[
              { value: 'true', label: 'Yes' },
              { value: 'false', label: 'No' },
            ]}
            onChange={(value) => {
              setConnected(value);
              setPage(1);
            }}
          />
          <SortSelect
            label="Sort telemetry"
            value={sort}
            options={[
              { value: 'ts', label: 'Time' },
              { value: 'rx_bytes', label: 'Received' },
              { value: 'tx_bytes', label: 'Sent' },
              { value: 'latency_ms', label: 'Latency' },
            ]}
            onChange={changeSort}
          />
        </div>
        <Table
          caption="Latest telemetry per device"
          captionHidden
          columns={telemetryColumns}
          rows={data?.rows}
          rowKey={(row) => row.device_id}
          loading={telemetry.isPending}
          emptyText={node || connected ? 'No device matches.' : 'No telemetry yet.'}
          sort={sort}
          onSortChange={changeSort}
          stacked
        />
        <Pager
          label="devices"
          page={data}
          busy={telemetry.isFetching}
          onPage={setPage}
          onPerPage={(size) => {
            setPerPage(size);
            setPage(1);
          }}
        />
      </section>
    </div>
  );
}
