import './admin.css';
import type { EChartsOption } from 'echarts';
import { Link } from 'react-router-dom';
import { Chart, ChartPanel, Skeleton, StatTile, Table, type TableColumn } from '../../../ui';
import { type AdminOverview, useOverview } from '../api/get-overview';
import { useHideTestAccounts } from '../hide-test-accounts';
import { byteScale, formatBytes, formatCount } from '../format';
import { LoadFailure } from './list-controls';

type TrafficHour = AdminOverview['traffic'][number];

/** 'YYYY-MM-DD HH:00 UTC' for the table, 'HH:00' on the axis. */
const hourLabel = (hour: string) => `${hour.slice(0, 10)} ${hour.slice(11, 13)}:00 UTC`;
const axisHour = (hour: string) => `${hour.slice(11, 13)}:00`;

/**
 * Spec §2 Overview: four count tiles (Users and Organizations link to Accounts, Devices to Devices,
 * Active Devices to Telemetry), the 24-hour traffic chart and a link to Servers.
 */
export function AdminOverviewPanel() {
  const overview = useOverview();
  // With test accounts hidden, telemetry takes their devices' hours off the chart (issue #26).
  const hideTest = useHideTestAccounts();
  const data = overview.data;
  const value = (pick: (data: AdminOverview) => number) =>
    data ? formatCount(pick(data)) : overview.isPending ? <Skeleton height={34} /> : '—';

  return (
    <>
      {overview.isError && !data && (
        <LoadFailure
          title="The overview did not load."
          error={overview.error}
          onRetry={() => void overview.refetch()}
          retrying={overview.isFetching}
        />
      )}
      <div className="admin-tiles">
        <StatTile
          label="Users"
          value={value((d) => d.users)}
          to="/admin/accounts"
          hint={hideTest ? 'People with an account, test accounts left out' : 'People with an account'}
        />
        <StatTile
          label="Organizations"
          value={value((d) => d.organizations)}
          to="/admin/accounts/organizations"
          hint={hideTest ? 'Business customers, test organizations left out' : 'Business customers'}
        />
        <StatTile
          label="Devices"
          value={value((d) => d.devices)}
          to="/admin/devices"
          hint={devicesHint(data, hideTest)}
        />
        <StatTile
          label="Active Devices"
          value={value((d) => d.active_devices)}
          to="/admin/telemetry"
          hint={hideTest ? 'Connected now, test accounts left out' : 'Connected now'}
        />
      </div>
      <ChartPanel
        title="Traffic"
        description={() =>
          `Last 24 hours, per hour, every node (received and sent by the devices${hideTest ? " of customers; test accounts' devices left out" : ''}).`
        }
        query={overview}
        isEmpty={(d) => d.traffic.every((hour) => hour.rx_bytes === 0 && hour.tx_bytes === 0)}
        emptyText={() => 'No traffic in the last 24 hours.'}
        chart={(d) => <Chart option={trafficOption(d.traffic)} label={trafficLabel(d.traffic)} height={280} />}
        table={(d) => (
          <Table
            caption="Traffic per hour, last 24 hours"
            captionHidden
            columns={trafficColumns}
            rows={d.traffic}
            rowKey={(row) => row.hour}
            stacked
          />
        )}
        // The overview is one request: the alert above the tiles already says it failed.
        failureText={null}
        chartHeight={280}
      />
      <p>
        <Link to="/admin/servers" className="admin-more-link">
          Servers: load, memory, disk and peers of every node →
        </Link>
      </p>
    </>
  );
}

/**
 * What the Devices figure is made of, in the words the Telemetry and Servers pages use, so the
 * three figures can be told apart: the placed ones are the Servers page's "Peers placed" summed.
 */
export function devicesHint(data: AdminOverview | undefined, hideTest = false): string {
  const every = hideTest ? "Every device but test accounts'" : 'Every device';
  if (!data) return every;
  const { placed, suspended, without_key } = data.devices_breakdown;
  return `${every}: ${formatCount(placed)} placed on servers, ${formatCount(suspended)} suspended, ${formatCount(without_key)} without a key`;
}

const trafficColumns: TableColumn<TrafficHour>[] = [
  { key: 'hour', header: 'Hour', cell: (row) => hourLabel(row.hour), rowHeader: true },
  { key: 'rx', header: 'Received', type: 'number', cell: (row) => formatBytes(row.rx_bytes) },
  { key: 'tx', header: 'Sent', type: 'number', cell: (row) => formatBytes(row.tx_bytes) },
];

function trafficLabel(traffic: TrafficHour[]): string {
  const rx = traffic.reduce((sum, hour) => sum + hour.rx_bytes, 0);
  const tx = traffic.reduce((sum, hour) => sum + hour.tx_bytes, 0);
  return `Traffic per hour over the last 24 hours: ${formatBytes(rx)} received and ${formatBytes(tx)} sent in all.`;
}

/** Two lines, received and sent, in the unit that suits the busiest hour; tooltips give exact bytes. */
export function trafficOption(traffic: TrafficHour[]): EChartsOption {
  const largest = Math.max(0, ...traffic.flatMap((hour) => [hour.rx_bytes, hour.tx_bytes]));
  const { unit, divisor } = byteScale(largest);
  const scaled = (bytes: number) => Number((bytes / divisor).toFixed(2));
  return {
    grid: { left: 56, right: 16, top: 40, bottom: 32 },
    legend: { top: 0, data: ['Received', 'Sent'] },
    tooltip: {
      trigger: 'axis',
      valueFormatter: (value) => `${value} ${unit}`,
    },
    xAxis: { type: 'category', data: traffic.map((hour) => axisHour(hour.hour)), name: 'UTC', boundaryGap: false },
    yAxis: { type: 'value', name: unit, min: 0 },
    series: [
      { name: 'Received', type: 'line', showSymbol: false, data: traffic.map((hour) => scaled(hour.rx_bytes)) },
      { name: 'Sent', type: 'line', showSymbol: false, data: traffic.map((hour) => scaled(hour.tx_bytes)) },
    ],
  };
}
