import { useEffect } from 'react';
import { siteName } from '../config/site';

export type PageTitleProps = {
  /** 'Pricing' becomes 'Pricing — Quietwire'. */
  title: string;
  description: string;
  /** Use the title as given, without the brand suffix (the home page). */
  exact?: boolean;
};

/** Sets document.title and the meta description of the current screen. Renders nothing. */
export function PageTitle({ title, description, exact = false }: PageTitleProps) {
  useEffect(() => {
    document.title = exact ? title : `${title} — ${siteName}`;
    let meta = document.head.querySelector<HTMLMetaElement>('meta[name="description"]');
    if (!meta) {
      meta = document.createElement('meta');
      meta.name = 'description';
      document.head.append(meta);
    }
    meta.content = description;
  }, [title, description, exact]);
  return null;
}
