import { cohortOffsets } from '@qw/contracts';
import { useId } from 'react';
import { Chart, ChartPanel, Table, type TableColumn } from '../../../ui';
import { useCohorts } from '../api/get-cohorts';
import { cohortHeatmapOption } from '../chart-options';
import { useChartPalette } from '../chart-palette';
import { formatCount, formatPercent, monthLabel, analyticsFailureText } from '../format';
import { type CohortRow, cohortGrid, cohortsIsEmpty } from '../series';
import { monthSpanText } from './span-text';

const offsets = Array.from({ length: cohortOffsets }, (_, offset) => offset);

const columns: readonly TableColumn<CohortRow>[] = [
  {
    key: 'cohort',
    header: 'Cohort',
    cell: (row) => monthLabel(row.month),
    sortValue: (row) => row.month,
    rowHeader: true,
  },
  {
    key: 'customers',
    header: 'Customers',
    cell: (row) => formatCount(row.customers),
    sortValue: (row) => row.customers,
    type: 'number',
  },
  ...offsets.map(
    (offset): TableColumn<CohortRow> => ({
      key: `m${offset}`,
      header: `+${offset}`,
      cell: (row) => formatPercent(row.cells[offset]?.retention_pct),
      type: 'number',
    }),
  ),
];

/**
 * Spec §3 cohort_retention_monthly: one row per cohort month, a column per month +0 to +11, the
 * share still paying in each cell. Narrow screens scroll the heatmap inside its own box.
 */
export function CohortRetentionPanel() {
  const query = useCohorts(cohortOffsets);
  const palette = useChartPalette();
  const hintId = useId();
  const label = `Last ${cohortOffsets} cohorts`;
  return (
    <ChartPanel
      failureText={analyticsFailureText}
      title="Cohort retention"
      description={(data) =>
        `${monthSpanText(data, label)}: the share of each month’s new customers still paying in months +0 to +${cohortOffsets - 1}`
      }
      query={query}
      wide
      chartHeight={360}
      isEmpty={cohortsIsEmpty}
      emptyText={() => `No cohorts yet: nobody started paying in the last ${cohortOffsets} months.`}
      chart={(data) => {
        const rows = cohortGrid(data);
        return (
          <>
            <p id={hintId} className="analytics-scroll__hint qw-small qw-muted">
              Cohort retention heatmap: a row per cohort (the month its customers first paid); scroll sideways for
              months +6 to +{cohortOffsets - 1}.
            </p>
            {/* biome-ignore lint/a11y/useSemanticElements: a scrollable box must be focusable so keyboards can scroll it */}
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: same reason */}
            <div className="analytics-scroll" role="region" aria-labelledby={hintId} tabIndex={0}>
              <div className="analytics-scroll__content">
                <Chart
                  label={`Cohort retention heatmap in percent, ${monthSpanText(data, label.toLowerCase())}: cohorts by row, months +0 to +${cohortOffsets - 1} by column. Show the table for the numbers.`}
                  option={cohortHeatmapOption(rows, palette)}
                  height={Math.max(240, rows.length * 30 + 100)}
                />
              </div>
            </div>
          </>
        );
      }}
      table={(data) => (
        <Table
          caption={`Cohort retention in percent, ${monthSpanText(data, label.toLowerCase())}`}
          captionHidden
          columns={columns}
          rows={cohortGrid(data)}
          rowKey={(row) => row.month}
        />
      )}
    />
  );
}
