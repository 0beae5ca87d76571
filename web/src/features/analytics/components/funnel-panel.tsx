import { dailyChartDays, funnelVisitsNote } from '@qw/contracts';
import { Alert, Chart, ChartPanel, Table, type TableColumn } from '../../../ui';
import { useHideTestAccounts } from '../../admin/hide-test-accounts';
import { type Funnel, useFunnel } from '../api/get-funnel';
import { funnelOption } from '../chart-options';
import { useChartPalette } from '../chart-palette';
import { formatCount, analyticsFailureText } from '../format';
import { funnelIsEmpty, funnelTotals } from '../series';
import { spanText } from './span-text';

type Row = Funnel['rows'][number];
type PathRow = Funnel['top_paths'][number];

const count = (key: string, header: string, value: (row: Row) => number): TableColumn<Row> => ({
  key,
  header,
  cell: (row) => formatCount(value(row)),
  sortValue: value,
  type: 'number',
});

function columnsFor(hasVisits: boolean): TableColumn<Row>[] {
  return [
    { key: 'day', header: 'Day', cell: (row) => row.day, sortValue: (row) => row.day, rowHeader: true },
    ...(hasVisits ? [count('visits', 'Visits', (row) => row.visits)] : []),
    count('signups', 'Sign-ups', (row) => row.signups),
    count('first-paid', 'First payments', (row) => row.first_paid),
  ];
}

const pathColumns: readonly TableColumn<PathRow>[] = [
  { key: 'path', header: 'Page', cell: (row) => <span className="qw-mono">{row.path}</span>, rowHeader: true },
  { key: 'views', header: 'Visits', cell: (row) => formatCount(row.views), type: 'number' },
];

/** Issue #26: visits are counted per page and day with nobody's id, so they cannot leave test accounts out. */
export const visitsIncludeTestText =
  'Visits include test accounts: page views are counted without knowing who made them. Sign-ups and first payments leave them out.';

/**
 * Spec §3 funnel_last_60d: visits (from web_traffic_daily), sign-ups and first payments per day.
 * Until the web traffic table has a row, the spec's note says where visits will come from. While
 * test accounts are hidden, a note says the visits still include them.
 */
export function FunnelPanel() {
  const query = useFunnel(dailyChartDays);
  const hideTest = useHideTestAccounts();
  const palette = useChartPalette();
  const label = `Last ${dailyChartDays} days`;
  return (
    <ChartPanel
      failureText={analyticsFailureText}
      title="Funnel"
      description={(data) => `${spanText(data, label)}: visits, sign-ups and first payments per day`}
      query={query}
      isEmpty={funnelIsEmpty}
      note={(data) =>
        data.has_visits ? (
          hideTest ? (
            <p className="analytics-note">{visitsIncludeTestText}</p>
          ) : null
        ) : (
          <Alert tone="info" announce={false}>
            {funnelVisitsNote}
          </Alert>
        )
      }
      emptyText={(data) =>
        data.has_visits
          ? `No visits, sign-ups or first payments in the last ${dailyChartDays} days.`
          : `No sign-ups or first payments in the last ${dailyChartDays} days.`
      }
      chart={(data) => (
        <Chart
          label={`Sign-ups (bars) and first payments (line)${data.has_visits ? ', with visits on the right-hand axis,' : ''} per day, ${spanText(data, label.toLowerCase())}. Show the table for the numbers.`}
          option={funnelOption(data, palette)}
        />
      )}
      table={(data) => (
        <Table
          caption={`Funnel per day, ${spanText(data, label.toLowerCase())}`}
          captionHidden
          columns={columnsFor(data.has_visits)}
          rows={data.rows}
          rowKey={(row) => row.day}
        />
      )}
      footer={(data) => <FunnelFooter data={data} />}
    />
  );
}

function FunnelFooter({ data }: { data: Funnel }) {
  const totals = funnelTotals(data);
  return (
    <>
      <p className="qw-small">
        In {dailyChartDays} days: {data.has_visits && <>{formatCount(totals.visits)} visits, </>}
        {formatCount(totals.signups)} sign-ups, {formatCount(totals.first_paid)} first payments.
      </p>
      {data.has_visits && data.top_paths.length > 0 && (
        <Table
          caption="Most visited public pages"
          columns={pathColumns}
          rows={data.top_paths}
          rowKey={(row) => row.path}
        />
      )}
    </>
  );
}
