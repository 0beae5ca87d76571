import { monthlyChartMonths } from '@qw/contracts';
import { Chart, ChartPanel, Table, type TableColumn } from '../../../ui';
import { type ChurnMonthly, useChurn } from '../api/get-churn';
import { churnOption } from '../chart-options';
import { useChartPalette } from '../chart-palette';
import { formatCents, formatCount, formatPercent, monthLabel, analyticsFailureText } from '../format';
import { churnIsEmpty } from '../series';
import { monthSpanText } from './span-text';

type Row = ChurnMonthly['rows'][number];

const columns: readonly TableColumn<Row>[] = [
  {
    key: 'month',
    header: 'Month',
    cell: (row) => monthLabel(row.month_start),
    sortValue: (row) => row.month_start,
    rowHeader: true,
  },
  {
    key: 'customers',
    header: 'Customers at start',
    cell: (row) => formatCount(row.customers_at_start),
    sortValue: (row) => row.customers_at_start,
    type: 'number',
  },
  {
    key: 'churned',
    header: 'Churned',
    cell: (row) => formatCount(row.churned_customers),
    sortValue: (row) => row.churned_customers,
    type: 'number',
  },
  {
    key: 'logo',
    header: 'Logo churn',
    cell: (row) => formatPercent(row.churn_pct),
    sortValue: (row) => row.churn_pct,
    type: 'number',
  },
  {
    key: 'mrr',
    header: 'MRR at start',
    cell: (row) => formatCents(row.mrr_at_start_cents),
    sortValue: (row) => row.mrr_at_start_cents,
    type: 'number',
  },
  {
    key: 'churned-mrr',
    header: 'Churned MRR',
    cell: (row) => formatCents(row.churned_cents),
    sortValue: (row) => row.churned_cents,
    type: 'number',
  },
  {
    key: 'contraction',
    header: 'Contraction',
    cell: (row) => formatCents(row.contraction_cents),
    sortValue: (row) => row.contraction_cents,
    type: 'number',
  },
  {
    key: 'revenue',
    header: 'Revenue churn',
    cell: (row) => formatPercent(row.revenue_churn_pct),
    sortValue: (row) => row.revenue_churn_pct,
    type: 'number',
  },
];

/** Spec §3 churn_monthly_last_12m: logo churn (churn_pct) and revenue churn per month, in percent. */
export function ChurnPanel() {
  const query = useChurn(monthlyChartMonths);
  const palette = useChartPalette();
  const label = `Last ${monthlyChartMonths} months`;
  return (
    <ChartPanel
      failureText={analyticsFailureText}
      title="Monthly churn"
      description={(data) => `${monthSpanText(data, label)}, logo and revenue churn in percent`}
      query={query}
      isEmpty={churnIsEmpty}
      emptyText={() =>
        `No churn to show: there were no paying customers at the start of any of the last ${monthlyChartMonths} months.`
      }
      chart={(data) => (
        <Chart
          label={`Logo churn and revenue churn per month in percent, ${monthSpanText(data, label.toLowerCase())}. Show the table for the numbers.`}
          option={churnOption(data, palette)}
        />
      )}
      table={(data) => (
        <Table
          caption={`Monthly churn, ${monthSpanText(data, label.toLowerCase())}`}
          captionHidden
          columns={columns}
          rows={data.rows}
          rowKey={(row) => row.month_start}
        />
      )}
    />
  );
}
