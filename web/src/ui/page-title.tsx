import { createContext, useContext, useEffect } from 'react';
import { siteName } from '../config/site';

export type PageTitleProps = {
  /** 'Pricing' becomes 'Pricing — Quietwire'. */
  title: string;
  description: string;
  /** Use the title as given, without the brand suffix (the home page). */
  exact?: boolean;
};

export type PageHead = { title: string; description: string };

/**
 * Given only while a page is rendered to HTML at build time (web/src/entry-server.tsx): receives
 * the screen's title and description for the HTML's <head>, where no effect can put them.
 */
export const PageHeadSink = createContext<((head: PageHead) => void) | null>(null);

export function fullPageTitle(title: string, exact: boolean): string {
  return exact ? title : `${title} — ${siteName}`;
}

/** Sets document.title and the meta description of the current screen. Renders nothing. */
export function PageTitle({ title, description, exact = false }: PageTitleProps) {
  const sink = useContext(PageHeadSink);
  sink?.({ title: fullPageTitle(title, exact), description });
  useEffect(() => {
    document.title = fullPageTitle(title, exact);
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
