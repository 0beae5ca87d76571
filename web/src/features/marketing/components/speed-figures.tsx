import { performanceClaims, performanceDisclaimer } from '../data/performance';
import './marketing.css';

/** The claimed typical figures with their disclaimer, always together. */
export function SpeedFigures() {
  return (
    <div className="mk-speed">
      <dl className="mk-speed__list">
        {performanceClaims.map((claim) => (
          <div key={claim.label} className="mk-speed__item">
            <dt>{claim.label}</dt>
            <dd>{claim.value}</dd>
          </div>
        ))}
      </dl>
      <p className="mk-speed__note">{performanceDisclaimer}</p>
    </div>
  );
}
