import { dailyChartDays } from '@qw/contracts';
import { Chart, ChartPanel, Table, type TableColumn } from '../../../ui';
import { type SubscriptionsDaily, useSubscriptionsDaily } from '../api/get-subscriptions-daily';
import { subscriptionsDailyOption } from '../chart-options';
import { useChartPalette } from '../chart-palette';
import { formatCount, analyticsFailureText } from '../format';
import { subscriptionsDailyIsEmpty } from '../series';
import { spanText } from './span-text';

type Row = SubscriptionsDaily['rows'][number];

const columns: readonly TableColumn<Row>[] = [
  { key: 'day', header: 'Day', cell: (row) => row.day, sortValue: (row) => row.day, rowHeader: true },
  {
    key: 'new',
    header: 'New subscriptions',
    cell: (row) => formatCount(row.new_subs),
    sortValue: (row) => row.new_subs,
    type: 'number',
  },
  {
    key: 'cancels',
    header: 'Cancels',
    cell: (row) => formatCount(row.cancels),
    sortValue: (row) => row.cancels,
    type: 'number',
  },
];

/** Spec §3 subscriptions_daily_last_730, the last 60 days: subscriptions started and ended per day. */
export function SubscriptionsDailyPanel() {
  const query = useSubscriptionsDaily(dailyChartDays);
  const palette = useChartPalette();
  return (
    <ChartPanel
      failureText={analyticsFailureText}
      title="New subscriptions and cancels"
      description={(data) => `${spanText(data, `Last ${dailyChartDays} days`)}, per day`}
      query={query}
      isEmpty={subscriptionsDailyIsEmpty}
      emptyText={() => `No subscriptions started or ended in the last ${dailyChartDays} days.`}
      chart={(data) => (
        <Chart
          label={`New subscriptions and cancels per day, ${spanText(data, `last ${dailyChartDays} days`)}: new subscriptions above the axis, cancels below. Show the table for the numbers.`}
          option={subscriptionsDailyOption(data, palette)}
        />
      )}
      table={(data) => (
        <Table
          caption={`New subscriptions and cancels per day, ${spanText(data, `last ${dailyChartDays} days`)}`}
          captionHidden
          columns={columns}
          rows={data.rows}
          rowKey={(row) => row.day}
        />
      )}
    />
  );
}
