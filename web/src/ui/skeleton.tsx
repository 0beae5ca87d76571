import './skeleton.css';

/**
 * A grey bar that pulses while content loads (table rows, charts); hidden from screen readers.
 * `block`: a card-sized bar (180 px) set by a class, for prerendered pages, whose HTML may carry no
 * style attribute (the site's policy allows no inline style).
 */
export function Skeleton({ height, block = false }: { height?: number; block?: boolean }) {
  return (
    <span
      className={block ? 'qw-skeleton qw-skeleton--block' : 'qw-skeleton'}
      style={height === undefined ? undefined : { height }}
      aria-hidden="true"
    />
  );
}
