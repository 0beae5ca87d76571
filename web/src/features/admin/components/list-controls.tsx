import './admin.css';
import { adminPageSizes } from '@qw/contracts';
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { Button, Field, Input, QueryFailure, Select } from '../../../ui';
import { formatCount, pageSummary } from '../format';

/** Page sizes the contract allows (10 to 100, 25 by default). */
const pageSizes = [10, adminPageSizes.default, 50, adminPageSizes.max] as const;

/**
 * A search box that asks the server when submitted (Enter or the Search button), so each
 * keystroke does not cost a request. Clearing the box and submitting shows everything again.
 */
export function SearchForm({
  label,
  placeholder,
  value,
  onSearch,
}: {
  label: string;
  placeholder?: string;
  value: string;
  onSearch: (q: string) => void;
}) {
  const [draft, setDraft] = useState(value);
  function submit(event: FormEvent) {
    event.preventDefault();
    onSearch(draft.trim());
  }
  return (
    <form aria-label={label} className="admin-search" onSubmit={submit}>
      <Field label={label} className="admin-search__field">
        <Input
          type="search"
          value={draft}
          maxLength={100}
          placeholder={placeholder}
          onChange={(event) => setDraft(event.target.value)}
        />
      </Field>
      <Button type="submit" variant="secondary">
        Search
      </Button>
    </form>
  );
}

export type FilterOption = { value: string; label: string };

/** A filter of a list: 'All' (empty) or one value. */
export function FilterSelect({
  label,
  value,
  options,
  onChange,
  allLabel = 'All',
}: {
  label: string;
  value: string;
  options: readonly FilterOption[];
  onChange: (value: string) => void;
  allLabel?: string;
}) {
  return (
    <Field label={label} className="admin-filter">
      <Select value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">{allLabel}</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </Select>
    </Field>
  );
}

/**
 * The sort of a server-sorted list as one select, for phones where the table's headers are hidden
 * (rows stacked as cards); wide screens sort with the headers.
 */
export function SortSelect({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: { key: string; direction: 'ascending' | 'descending' };
  options: readonly FilterOption[];
  onChange: (sort: { key: string; direction: 'ascending' | 'descending' }) => void;
}) {
  const current = `${value.key}:${value.direction}`;
  return (
    <Field label={label} className="admin-filter admin-narrow-only">
      <Select
        value={current}
        onChange={(event) => {
          const [key = '', direction] = event.target.value.split(':');
          onChange({ key, direction: direction === 'ascending' ? 'ascending' : 'descending' });
        }}
      >
        {options.flatMap((option) => [
          <option key={`${option.value}:ascending`} value={`${option.value}:ascending`}>
            {option.label}, ascending
          </option>,
          <option key={`${option.value}:descending`} value={`${option.value}:descending`}>
            {option.label}, descending
          </option>,
        ])}
      </Select>
    </Field>
  );
}

/** Where a list stands and how to move: 'Rows 26–50 of 87', Previous, 'Page 2 of 4', Next, rows per page. */
export function Pager({
  label,
  page,
  onPage,
  onPerPage,
  busy = false,
  hasNext,
  navLabel = `Pages of ${label}`,
}: {
  /** What the rows are ('users'), naming the navigation. */
  label: string;
  /** The navigation's name, where a list has two pagers (above and below it). */
  navLabel?: string;
  page: { page: number; per_page: number; total: number } | undefined;
  onPage: (page: number) => void;
  onPerPage: (perPage: number) => void;
  busy?: boolean;
  /** For a list paged by a cursor: whether the server said an older page exists. */
  hasNext?: boolean;
}) {
  const perPageId = useId();
  if (!page) return null;
  const { pages, from, to } = pageSummary(page);
  return (
    <nav className="admin-pager" aria-label={navLabel} aria-busy={busy || undefined}>
      <p className="qw-small qw-muted admin-pager__summary" aria-live="polite">
        {page.total === 0
          ? `No ${label}`
          : `${label[0]?.toUpperCase()}${label.slice(1)} ${formatCount(from)}–${formatCount(to)} of ${formatCount(page.total)}`}
      </p>
      <div className="admin-pager__controls">
        <Button variant="secondary" size="small" disabled={page.page <= 1} onClick={() => onPage(page.page - 1)}>
          Previous
        </Button>
        <span className="qw-small admin-pager__page">
          Page {formatCount(page.page)} of {formatCount(pages)}
        </span>
        <Button
          variant="secondary"
          size="small"
          disabled={hasNext === undefined ? page.page >= pages : !hasNext}
          onClick={() => onPage(page.page + 1)}
        >
          Next
        </Button>
        <label className="qw-small admin-pager__size" htmlFor={perPageId}>
          Per page
          <select
            id={perPageId}
            className="qw-select admin-pager__select"
            value={page.per_page}
            onChange={(event) => onPerPage(Number(event.target.value))}
          >
            {pageSizes.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </label>
      </div>
    </nav>
  );
}

/** A list or figure that did not load: what the server said, and Retry. */
export function LoadFailure({
  error,
  onRetry,
  retrying,
  title = 'This did not load.',
}: {
  error: unknown;
  onRetry: () => void;
  retrying: boolean;
  title?: ReactNode;
}) {
  return (
    <QueryFailure
      title={title}
      message={failureMessage(error, 'The console could not reach the server. Try again in a moment.')}
      onRetry={onRetry}
      retrying={retrying}
    />
  );
}

/**
 * A figure the node may not measure (null): '—' with the reason as its title and for screen
 * readers, never a made-up zero.
 */
export function Measured({ value, reason }: { value: string | null; reason: string }) {
  if (value !== null) return <>{value}</>;
  return (
    <span className="admin-unmeasured" title={reason}>
      <span aria-hidden="true">—</span>
      <span className="qw-visually-hidden">{reason}</span>
    </span>
  );
}
