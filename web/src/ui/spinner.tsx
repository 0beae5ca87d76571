import './spinner.css';

/** The busy mark: a turning ring in the current text colour, hidden from screen readers. */
export function Spinner() {
  return <span className="qw-spinner" aria-hidden="true" />;
}
