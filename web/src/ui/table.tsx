import { useId, useMemo, useState, type ReactNode } from 'react';

export type SortDirection = 'ascending' | 'descending';

export type TableColumn<T> = {
  key: string;
  header: ReactNode;
  cell: (row: T) => ReactNode;
  /** Makes the header a sort button. */
  sortValue?: (row: T) => string | number | null | undefined;
  /** 'number' right-aligns the column with tabular figures. */
  type?: 'text' | 'number';
  /** Render this column's cells as row headers (th scope="row"). */
  rowHeader?: boolean;
  className?: string;
};

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
  initialSort?: { key: string; direction: SortDirection };
  /** Extra class on the <table> element (column widths, layout). */
  className?: string;
};

function compare(a: string | number | null | undefined, b: string | number | null | undefined): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: 'base' });
}

/**
 * The one data table: sortable headers, an empty state, a loading skeleton, numbers right-aligned,
 * and horizontal scrolling (keyboard-focusable) when the screen is narrower than the table.
 */
export function Table<T>({ caption, captionHidden = false, columns, rows, rowKey, loading = false, skeletonRows = 3, emptyText = 'Nothing here yet.', initialSort, className }: TableProps<T>) {
  const captionId = useId();
  const [sort, setSort] = useState(initialSort);

  const sortedRows = useMemo(() => {
    const list = rows ? [...rows] : [];
    const column = sort && columns.find((c) => c.key === sort.key);
    if (!sort || !column?.sortValue) return list;
    const value = column.sortValue;
    list.sort((a, b) => compare(value(a), value(b)) * (sort.direction === 'ascending' ? 1 : -1));
    return list;
  }, [rows, columns, sort]);

  function toggleSort(key: string) {
    setSort((current) =>
      current?.key === key ? { key, direction: current.direction === 'ascending' ? 'descending' : 'ascending' } : { key, direction: 'ascending' },
    );
  }

  const cellClass = (column: TableColumn<T>) => [column.type === 'number' && 'qw-table__num', column.className].filter(Boolean).join(' ') || undefined;

  return (
    <div className="qw-table-wrap" role="region" aria-labelledby={captionId} tabIndex={0}>
      <table className={className ? `qw-table ${className}` : 'qw-table'} aria-busy={loading || undefined}>
        <caption id={captionId} className={captionHidden ? 'qw-visually-hidden' : undefined}>
          {caption}
        </caption>
        <thead>
          <tr>
            {columns.map((column) => {
              const sorted = sort?.key === column.key ? sort.direction : undefined;
              return (
                <th key={column.key} scope="col" className={cellClass(column)} aria-sort={column.sortValue ? (sorted ?? 'none') : undefined}>
                  {column.sortValue ? (
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
        <tbody>
          {loading ? (
            Array.from({ length: skeletonRows }, (_, index) => (
              <tr key={`skeleton-${index}`} aria-hidden="true">
                {columns.map((column) => (
                  <td key={column.key}>
                    <span className="qw-skeleton" />
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
            sortedRows.map((row) => (
              <tr key={rowKey(row)}>
                {columns.map((column) =>
                  column.rowHeader ? (
                    <th key={column.key} scope="row" className={cellClass(column)}>
                      {column.cell(row)}
                    </th>
                  ) : (
                    <td key={column.key} className={cellClass(column)}>
                      {column.cell(row)}
                    </td>
                  ),
                )}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}
