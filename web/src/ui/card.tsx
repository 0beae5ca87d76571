import type { HTMLAttributes, ReactNode } from 'react';
import './card.css';

export type CardProps = HTMLAttributes<HTMLElement> & {
  /** 'article' for self-contained items (a plan, an FAQ answer), 'section' for a titled region. */
  as?: 'div' | 'article' | 'section' | 'li';
  tone?: 'default' | 'muted' | 'highlight';
  children: ReactNode;
};

export function Card({ as: Tag = 'div', tone = 'default', className, children, ...rest }: CardProps) {
  const classes = ['qw-card', tone !== 'default' && `qw-card--${tone}`, className].filter(Boolean).join(' ');
  return (
    <Tag {...rest} className={classes}>
      {children}
    </Tag>
  );
}
