import { dailyChartDays } from '@qw/contracts';
import { Chart, ChartPanel, Table, type TableColumn } from '../../../ui';
import { useRevenueDaily, type RevenueDaily } from '../api/get-revenue-daily';
import { revenueDailyOption } from '../chart-options';
import { useChartPalette } from '../chart-palette';
import { formatCents, analyticsFailureText } from '../format';
import { revenueDailyIsEmpty } from '../series';
import { spanText } from './span-text';

type Row = RevenueDaily['rows'][number];

const columns: readonly TableColumn<Row>[] = [
  { key: 'day', header: 'Day', cell: (row) => row.day, sortValue: (row) => row.day, rowHeader: true },
  {
    key: 'gross',
    header: 'Gross',
    cell: (row) => formatCents(row.amount_cents),
    sortValue: (row) => row.amount_cents,
    type: 'number',
  },
  {
    key: 'refunds',
    header: 'Refunds',
    cell: (row) => formatCents(row.refunded_cents),
    sortValue: (row) => row.refunded_cents,
    type: 'number',
  },
  {
    key: 'net',
    header: 'Net',
    cell: (row) => formatCents(row.net_cents),
    sortValue: (row) => row.net_cents,
    type: 'number',
  },
];

/** Spec §3 revenue_daily_last_730, the last 60 days: gross bars, refunds below the axis, the net line. */
export function RevenueDailyPanel() {
  const query = useRevenueDaily(dailyChartDays);
  const palette = useChartPalette();
  return (
    <ChartPanel
      failureText={analyticsFailureText}
      title="Daily revenue"
      description={(data) => `${spanText(data, `Last ${dailyChartDays} days`)}, in USD`}
      query={query}
      wide
      isEmpty={revenueDailyIsEmpty}
      emptyText={() => `No revenue in the last ${dailyChartDays} days.`}
      chart={(data) => (
        <Chart
          label={`Daily revenue in USD, ${spanText(data, `last ${dailyChartDays} days`)}: gross bars, refunds below the axis and the net line. Show the table for the numbers.`}
          option={revenueDailyOption(data, palette)}
        />
      )}
      table={(data) => (
        <Table
          caption={`Daily revenue, ${spanText(data, `last ${dailyChartDays} days`)}`}
          captionHidden
          columns={columns}
          rows={data.rows}
          rowKey={(row) => row.day}
        />
      )}
    />
  );
}
