import { monthlyChartMonths } from '@qw/contracts';
import { Chart, ChartPanel, Table, type TableColumn } from '../../../ui';
import { useRevenueMonthly } from '../api/get-revenue-monthly';
import { revenueByPlanOption } from '../chart-options';
import { useChartPalette } from '../chart-palette';
import { formatCents, monthLabel, analyticsFailureText } from '../format';
import { type RevenueByPlan, revenueByPlan, revenueMonthlyIsEmpty } from '../series';
import { monthSpanText } from './span-text';

type Row = { month: string; index: number };

function columnsFor(pivot: RevenueByPlan): TableColumn<Row>[] {
  const money = (key: string, header: string, value: (row: Row) => number): TableColumn<Row> => ({
    key,
    header,
    cell: (row) => formatCents(value(row)),
    sortValue: value,
    type: 'number',
  });
  return [
    {
      key: 'month',
      header: 'Month',
      cell: (row) => monthLabel(row.month),
      sortValue: (row) => row.month,
      rowHeader: true,
    },
    ...pivot.plans.map((plan) => money(`plan-${plan.code}`, plan.name, (row) => plan.amounts[row.index] ?? 0)),
    money('total', 'Gross', (row) => pivot.totals[row.index] ?? 0),
    money('refunds', 'Refunds', (row) => pivot.refunds[row.index] ?? 0),
  ];
}

/** Spec §3 revenue by month and plan, the last 12 months: gross stacked by plan (display names of spec §9). */
export function RevenueByPlanPanel() {
  const query = useRevenueMonthly(monthlyChartMonths);
  const palette = useChartPalette();
  const label = `Last ${monthlyChartMonths} months`;
  return (
    <ChartPanel
      failureText={analyticsFailureText}
      title="Revenue by plan"
      description={(data) => `${monthSpanText(data, label)}, gross in USD per month`}
      query={query}
      isEmpty={revenueMonthlyIsEmpty}
      emptyText={() => `No revenue in the last ${monthlyChartMonths} months.`}
      chart={(data) => (
        <Chart
          label={`Gross revenue per month in USD, stacked by plan, ${monthSpanText(data, label.toLowerCase())}. Show the table for the numbers.`}
          option={revenueByPlanOption(revenueByPlan(data), palette)}
        />
      )}
      table={(data) => {
        const pivot = revenueByPlan(data);
        return (
          <Table
            caption={`Revenue by plan, ${monthSpanText(data, label.toLowerCase())}`}
            captionHidden
            columns={columnsFor(pivot)}
            rows={pivot.months.map((month, index) => ({ month, index }))}
            rowKey={(row) => row.month}
          />
        );
      }}
    />
  );
}
