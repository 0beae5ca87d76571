import type { ReactNode } from 'react';
import { NavLink } from 'react-router-dom';
import './tabs.css';

export type TabItem = { to: string; label: ReactNode; end?: boolean };

/** Route tabs: each tab is a link, the current one carries aria-current="page". */
export function Tabs({ label, items, children }: { label: string; items: readonly TabItem[]; children?: ReactNode }) {
  return (
    <nav className="qw-tabs" aria-label={label}>
      <ul className="qw-tabs__list">
        {items.map((item) => (
          <li key={item.to}>
            <NavLink className="qw-tabs__link" to={item.to} end={item.end}>
              {item.label}
            </NavLink>
          </li>
        ))}
        {children}
      </ul>
    </nav>
  );
}
