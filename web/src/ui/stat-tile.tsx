import { useId, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import './stat-tile.css';

export type StatTileProps = {
  label: ReactNode;
  value: ReactNode;
  hint?: ReactNode;
  /** Makes the whole tile a link (admin overview tiles). */
  to?: string;
  /** A control beside the label, such as an analytics tile's window picker (never on a link tile). */
  control?: ReactNode;
  /** The value is being fetched again (another window); the previous one stays on screen meanwhile. */
  busy?: boolean;
};

/** A figure and its label. A tile that is not a link is a group named by its label, so it can be found by name. */
export function StatTile({ label, value, hint, to, control, busy = false }: StatTileProps) {
  const labelId = useId();
  const labelText = (
    <span className="qw-stat-tile__label" id={to ? undefined : labelId}>
      {label}
    </span>
  );
  const content = (
    <>
      {control && !to ? (
        <div className="qw-stat-tile__head">
          {labelText}
          {control}
        </div>
      ) : (
        labelText
      )}
      <span className="qw-stat-tile__value">{value}</span>
      {hint && <span className="qw-stat-tile__hint">{hint}</span>}
    </>
  );
  return to ? (
    <Link className="qw-stat-tile" to={to}>
      {content}
    </Link>
  ) : (
    // biome-ignore lint/a11y/useSemanticElements: a figure and its label are a named group, not a form's fieldset
    <div className="qw-stat-tile" role="group" aria-labelledby={labelId} aria-busy={busy || undefined}>
      {content}
    </div>
  );
}
