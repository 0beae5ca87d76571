import { Link } from 'react-router-dom';

/** The link to the other area, at the end of an area's tab row (a person with a personal plan and an organization). */
export function AreaSwitch({ to, label }: { to: string; label: string }) {
  return (
    <li>
      <Link className="console__tab-extra console__area-switch" to={to}>
        {label}
        <span aria-hidden="true"> →</span>
      </Link>
    </li>
  );
}
