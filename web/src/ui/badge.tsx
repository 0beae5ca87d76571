import type { ReactNode } from 'react';
import './badge.css';

/** accent: 'Most Popular', 'Best for Teams'; success: Active/Online; warning: Suspended; neutral: Idle. */
export type BadgeTone = 'accent' | 'success' | 'warning' | 'danger' | 'neutral';

export function Badge({
  tone = 'accent',
  dot = false,
  children,
}: {
  tone?: BadgeTone;
  dot?: boolean;
  children: ReactNode;
}) {
  return (
    <span className={`qw-badge qw-badge--${tone}`}>
      {dot && <span className="qw-badge__dot" aria-hidden="true" />}
      {children}
    </span>
  );
}
