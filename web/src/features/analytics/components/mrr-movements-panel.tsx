import { monthlyChartMonths } from '@qw/contracts';
import { Chart, ChartPanel, Table, type TableColumn } from '../../../ui';
import { type MrrMovements, useMrrMovements } from '../api/get-mrr-movements';
import { mrrMovementsOption } from '../chart-options';
import { useChartPalette } from '../chart-palette';
import { formatCents, monthLabel, analyticsFailureText } from '../format';
import { mrrMovementsIsEmpty } from '../series';
import { monthSpanText } from './span-text';

type Row = MrrMovements['rows'][number];

const money = (key: string, header: string, value: (row: Row) => number): TableColumn<Row> => ({
  key,
  header,
  cell: (row) => formatCents(value(row)),
  sortValue: value,
  type: 'number',
});

const columns: readonly TableColumn<Row>[] = [
  {
    key: 'month',
    header: 'Month',
    cell: (row) => monthLabel(row.month_start),
    sortValue: (row) => row.month_start,
    rowHeader: true,
  },
  money('new', 'New', (row) => row.new_cents),
  money('expansion', 'Expansion', (row) => row.expansion_cents),
  money('reactivation', 'Reactivation', (row) => row.reactivation_cents),
  money('contraction', 'Contraction', (row) => -row.contraction_cents),
  money('churn', 'Churn', (row) => -row.churn_cents),
  money('net', 'Net', (row) => row.net_cents),
  money('mrr', 'MRR at month end', (row) => row.mrr_end_cents),
];

/** MRR movements per month: new, expansion and reactivation up; contraction and churn down; net and MRR lines. */
export function MrrMovementsPanel() {
  const query = useMrrMovements(monthlyChartMonths);
  const palette = useChartPalette();
  const label = `Last ${monthlyChartMonths} months`;
  return (
    <ChartPanel
      failureText={analyticsFailureText}
      title="MRR movements"
      wide
      description={(data) => `${monthSpanText(data, label)}, in USD per month`}
      query={query}
      isEmpty={mrrMovementsIsEmpty}
      emptyText={() => `No MRR in the last ${monthlyChartMonths} months.`}
      chart={(data) => (
        <Chart
          label={`MRR movements per month in USD, ${monthSpanText(data, label.toLowerCase())}: new, expansion and reactivation above the axis, contraction and churn below, with the net movement and MRR lines. Show the table for the numbers.`}
          option={mrrMovementsOption(data, palette)}
          height={320}
        />
      )}
      table={(data) => (
        <Table
          caption={`MRR movements, ${monthSpanText(data, label.toLowerCase())}`}
          captionHidden
          columns={columns}
          rows={data.rows}
          rowKey={(row) => row.month_start}
        />
      )}
    />
  );
}
