import type { UseQueryResult } from '@tanstack/react-query';
import { useId, useState, type ReactNode } from 'react';
import { Alert } from './alert';
import { Button } from './button';
import { Skeleton } from './skeleton';
import './chart-panel.css';

/** A request behind a panel or a figure failed: what went wrong, and a way to ask again. */
export function QueryFailure({
  message,
  title = 'This did not load.',
  onRetry,
  retrying,
  compact = false,
}: {
  message: ReactNode;
  title?: ReactNode;
  onRetry: () => void;
  retrying: boolean;
  /** One line beside a figure (a tile) instead of an alert. */
  compact?: boolean;
}) {
  const retry = (
    <Button variant="secondary" size="small" onClick={onRetry} busy={retrying} busyText="Retrying…">
      Retry
    </Button>
  );
  if (compact)
    return (
      <span className="qw-query-failure qw-query-failure--compact" role="alert">
        <span>{message}</span>
        {retry}
      </span>
    );
  return (
    <Alert tone="error" title={title}>
      <div className="qw-query-failure">
        <p>{message}</p>
        {retry}
      </div>
    </Alert>
  );
}

export type ChartPanelProps<T> = {
  /** The heading, which also names the panel's region (e.g. 'Daily revenue'). */
  title: string;
  /** What and over which span, under the heading (e.g. 'Last 60 days, USD'). */
  description: (data: T | undefined) => ReactNode;
  query: UseQueryResult<T>;
  isEmpty: (data: T) => boolean;
  /** Said plainly when the span holds no figure yet. */
  emptyText: (data: T) => ReactNode;
  /** Shown above the chart or the empty text (the funnel's visits note). */
  note?: (data: T) => ReactNode;
  chart: (data: T) => ReactNode;
  /** The same numbers as a table, for screen readers and anyone who wants them exact. */
  table: (data: T) => ReactNode;
  /** Under the chart, e.g. the funnel's most visited pages. */
  footer?: (data: T) => ReactNode;
  /** The words for a failed request; null: the page already says so (one request behind several panels). */
  failureText: ((error: unknown) => string) | null;
  chartHeight?: number;
  /** Spans both columns of a chart grid (`qw-chart-panel--wide`; the grid decides). */
  wide?: boolean;
};

/**
 * One chart of the console (Analytics, the Overview's traffic): a heading, a loading skeleton, the
 * failure and a retry, a plain sentence when there is nothing to draw, else the chart and a
 * "Show table" toggle for the same numbers as a table.
 */
export function ChartPanel<T>({
  title,
  description,
  query,
  isEmpty,
  emptyText,
  note,
  chart,
  table,
  footer,
  failureText,
  chartHeight = 300,
  wide = false,
}: ChartPanelProps<T>) {
  const headingId = useId();
  const tableId = useId();
  const [showTable, setShowTable] = useState(false);
  const data = query.data;
  const ready = data !== undefined && !isEmpty(data);

  return (
    <section
      className={wide ? 'qw-card qw-chart-panel qw-chart-panel--wide' : 'qw-card qw-chart-panel'}
      aria-labelledby={headingId}
      aria-busy={query.isFetching || undefined}
    >
      <div className="qw-chart-panel__head">
        <div className="qw-chart-panel__titles">
          <h2 id={headingId} className="qw-chart-panel__title">
            {title}
          </h2>
          <p className="qw-small qw-muted">{description(data)}</p>
        </div>
        {ready && (
          <Button
            variant="secondary"
            size="small"
            aria-expanded={showTable}
            aria-controls={tableId}
            onClick={() => setShowTable((shown) => !shown)}
          >
            {showTable ? 'Hide table' : 'Show table'}
          </Button>
        )}
      </div>
      {data !== undefined && note?.(data)}
      {query.isPending ? (
        <Skeleton height={chartHeight} />
      ) : query.isError && data === undefined ? (
        failureText && (
          <QueryFailure
            title="These figures did not load."
            message={failureText(query.error)}
            onRetry={() => void query.refetch()}
            retrying={query.isFetching}
          />
        )
      ) : data === undefined ? null : !ready ? (
        <p className="qw-chart-panel__empty">{emptyText(data)}</p>
      ) : (
        <>
          {chart(data)}
          <div id={tableId} hidden={!showTable} className="qw-chart-panel__table">
            {showTable && table(data)}
          </div>
          {footer?.(data)}
        </>
      )}
    </section>
  );
}
