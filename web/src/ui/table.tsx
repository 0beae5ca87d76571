import { Fragment, useId, useMemo, useState, type ReactNode } from 'react';
import { Skeleton } from './skeleton';
import './table.css';

export type SortDirection = 'ascending' | 'descending';

export type TableColumn<T> = {
  key: string;
  header: ReactNode;
  cell: (row: T) => ReactNode;
  /** Makes the header a sort button. */
  sortValue?: (row: T) => string | number | null | undefined;
  /** 'number' right-aligns the column with tabular figures. */
  type?: 'text' | 'number';
  /** Makes the header a sort button when the table sorts on the server (`onSortChange`). */
  sortable?: boolean;
  /** Render this column's cells as row headers (th scope="row"). */
  rowHeader?: boolean;
  className?: string;
  /** The column's name beside each value when rows are stacked as cards; defaults to a text header. */
  label?: string;
};

export type TableSort = { key: string; direction: SortDirection };

export type TableProps<T> = {
  caption: ReactNode;
  /** Keep the caption for screen readers only, when a visible heading already names the table. */
  captionHidden?: boolean;
  columns: readonly TableColumn<T>[];
  rows: readonly T[] | undefined;
  rowKey: (row: T) => string;
  loading?: boolean;
  skeletonRows?: number;
  emptyText?: ReactNode;
  initialSort?: TableSort;
  /**
   * Sorting done by the server: the table shows `sort`, keeps the rows in the order given and
   * reports header clicks here instead of sorting them itself.
   */
  sort?: TableSort;
  onSortChange?: (sort: TableSort) => void;
  /**
   * Below 640 px each row becomes a card listing every column by name (no sideways scrolling). On by
   * default: every column and action stays visible on a phone. `false` keeps the grid (and its
   * sideways scroll) for a table whose meaning is the grid itself.
   */
  stacked?: boolean;
  /** Extra class on the <table> element (column widths, layout). */
  className?: string;
  /**
   * More about each row, on a line of its own under it spanning every column (a device's key,
   * addresses, traffic). Each row and its details are then one <tbody>, so they sort together and
   * a phone shows them as one card.
   */
  rowDetails?: (row: T) => ReactNode;
};

function compare(a: string | number | null | undefined, b: string | number | null | undefined): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: 'base' });
}

/**
 * The one data table: sortable headers, an empty state, a loading skeleton, numbers right-aligned;
 * below 640 px rows stack as cards, and an unstacked table scrolls sideways (keyboard-focusable).
 */
export function Table<T>({
  caption,
  captionHidden = false,
  columns,
  rows,
  rowKey,
  loading = false,
  skeletonRows = 3,
  emptyText = 'Nothing here yet.',
  initialSort,
  sort: serverSort,
  onSortChange,
  stacked = true,
  className,
  rowDetails,
}: TableProps<T>) {
  const captionId = useId();
  const [localSort, setLocalSort] = useState(initialSort);
  const sort = onSortChange ? serverSort : localSort;

  const sortedRows = useMemo(() => {
    const list = rows ? [...rows] : [];
    if (onSortChange) return list;
    const column = sort && columns.find((c) => c.key === sort.key);
    if (!sort || !column?.sortValue) return list;
    const value = column.sortValue;
    list.sort((a, b) => compare(value(a), value(b)) * (sort.direction === 'ascending' ? 1 : -1));
    return list;
  }, [rows, columns, sort, onSortChange]);

  function toggleSort(key: string) {
    const next = (current: TableSort | undefined): TableSort =>
      current?.key === key
        ? { key, direction: current.direction === 'ascending' ? 'descending' : 'ascending' }
        : { key, direction: 'ascending' };
    if (onSortChange) onSortChange(next(sort));
    else setLocalSort(next);
  }

  const sortable = (column: TableColumn<T>) => Boolean(onSortChange ? column.sortable : column.sortValue);
  const labelOf = (column: TableColumn<T>) =>
    stacked ? (column.label ?? (typeof column.header === 'string' ? column.header : undefined)) : undefined;

  const cellClass = (column: TableColumn<T>) =>
    [column.type === 'number' && 'qw-table__num', column.className].filter(Boolean).join(' ') || undefined;

  const renderRow = (row: T) => (
    <tr>
      {columns.map((column) =>
        column.rowHeader ? (
          <th key={column.key} scope="row" className={cellClass(column)} data-label={labelOf(column)}>
            {column.cell(row)}
          </th>
        ) : (
          <td key={column.key} className={cellClass(column)} data-label={labelOf(column)}>
            {column.cell(row)}
          </td>
        ),
      )}
    </tr>
  );

  const wrapClass = stacked ? 'qw-table-wrap qw-table-wrap--stacked' : 'qw-table-wrap';

  return (
    // biome-ignore lint/a11y/useSemanticElements: a scrollable table region must be focusable so keyboards can scroll it
    // biome-ignore lint/a11y/noNoninteractiveTabindex: same reason
    <div className={wrapClass} role="region" aria-labelledby={captionId} tabIndex={0}>
      <table
        className={['qw-table', stacked && 'qw-table--stacked', className].filter(Boolean).join(' ')}
        aria-busy={loading || undefined}
      >
        <caption id={captionId} className={captionHidden ? 'qw-visually-hidden' : undefined}>
          {caption}
        </caption>
        <thead>
          <tr>
            {columns.map((column) => {
              const sorted = sort?.key === column.key ? sort.direction : undefined;
              return (
                <th
                  key={column.key}
                  scope="col"
                  className={cellClass(column)}
                  aria-sort={sortable(column) ? (sorted ?? 'none') : undefined}
                >
                  {sortable(column) ? (
                    <button type="button" className="qw-table__sort" onClick={() => toggleSort(column.key)}>
                      {column.header}
                      <span className="qw-table__sort-icon" aria-hidden="true">
                        {sorted === 'ascending' ? '▲' : sorted === 'descending' ? '▼' : '↕'}
                      </span>
                    </button>
                  ) : (
                    column.header
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        {rowDetails && !loading && sortedRows.length > 0 ? (
          sortedRows.map((row) => (
            <tbody key={rowKey(row)} className="qw-table__group">
              {renderRow(row)}
              <tr className="qw-table__details">
                <td colSpan={columns.length} data-label={stacked ? 'Details' : undefined}>
                  {rowDetails(row)}
                </td>
              </tr>
            </tbody>
          ))
        ) : (
          <tbody>
            {loading ? (
              skeletonKeys(skeletonRows).map((key) => (
                // biome-ignore lint/a11y/noAriaHiddenOnFocusable: placeholder rows hold nothing focusable
                <tr key={key} aria-hidden="true">
                  {columns.map((column) => (
                    <td key={column.key}>
                      <Skeleton />
                    </td>
                  ))}
                </tr>
              ))
            ) : sortedRows.length === 0 ? (
              <tr>
                <td className="qw-table__empty" colSpan={columns.length}>
                  {emptyText}
                </td>
              </tr>
            ) : (
              sortedRows.map((row) => <Fragment key={rowKey(row)}>{renderRow(row)}</Fragment>)
            )}
          </tbody>
        )}
      </table>
    </div>
  );
}

/** Placeholder rows have no identity of their own; stable names keep React from re-creating them. */
function skeletonKeys(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `skeleton-${index + 1}`);
}
