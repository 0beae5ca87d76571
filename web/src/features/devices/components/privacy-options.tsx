import type { PrivacyChoice } from '../utils/privacy-choice';
import { PrivacyFields } from './privacy-fields';

/**
 * The add forms' privacy fields (issue #25), folded away: most people keep the defaults (no
 * blocking, all traffic), and the summary says what is chosen while it is closed.
 */
export function PrivacyOptions({
  idPrefix,
  value,
  onChange,
}: {
  idPrefix: string;
  value: PrivacyChoice;
  onChange: (value: PrivacyChoice) => void;
}) {
  const blocking = value.blocking.length === 0 ? 'no blocking' : `blocking ${value.blocking.length} of 5`;
  const split = { all: 'all traffic', except_local: 'all but local networks', custom: 'listed routes' }[value.split];
  return (
    <details className="devices-add__privacy">
      <summary>
        Privacy options <span className="qw-muted qw-small">({`${blocking}, ${split}`})</span>
      </summary>
      <PrivacyFields idPrefix={`${idPrefix}-privacy`} value={value} onChange={onChange} />
    </details>
  );
}
