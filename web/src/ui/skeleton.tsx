import './skeleton.css';

/** A grey bar that pulses while content loads (table rows, charts); hidden from screen readers. */
export function Skeleton({ height }: { height?: number }) {
  return <span className="qw-skeleton" style={height === undefined ? undefined : { height }} aria-hidden="true" />;
}
