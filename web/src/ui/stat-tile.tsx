import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';

export type StatTileProps = {
  label: ReactNode;
  value: ReactNode;
  hint?: ReactNode;
  /** Makes the whole tile a link (admin overview tiles). */
  to?: string;
};

export function StatTile({ label, value, hint, to }: StatTileProps) {
  const content = (
    <>
      <span className="qw-stat-tile__label">{label}</span>
      <span className="qw-stat-tile__value">{value}</span>
      {hint && <span className="qw-stat-tile__hint">{hint}</span>}
    </>
  );
  return to ? (
    <Link className="qw-stat-tile" to={to}>
      {content}
    </Link>
  ) : (
    <div className="qw-stat-tile">{content}</div>
  );
}
