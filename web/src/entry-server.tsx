/**
 * The build's prerender (web/prerender.ts) renders the public pages with this module, in Node, to
 * the HTML the gateway serves for them. The tree is the browser's (main.tsx) with the router made
 * static for one location, so hydration in the browser finds exactly the markup it would render.
 * Nothing here runs in the browser.
 */
import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { createStaticHandler, createStaticRouter, StaticRouterProvider } from 'react-router-dom';
import { AppProviders } from './app/providers';
import { appRoutes } from './app/router';
import { type PageHead, PageHeadSink } from './ui/page-title';

/** `module`: the screen the router loads lazily for the path (its chunk and stylesheets go in the page's head). */
export type PrerenderedPage = { path: string; file: string; module: string };

/**
 * The pages rendered at build time and the file each one's HTML is written to (under
 * dist/prerendered/). Their content is the same for everybody and needs no request: the plan
 * catalog comes from @qw/contracts. /servers is the page's frame; its live status loads in the
 * browser as before.
 */
export const prerenderedPages: readonly PrerenderedPage[] = [
  { path: '/', file: 'index.html', module: 'src/app/routes/home.route.tsx' },
  { path: '/pricing', file: 'pricing.html', module: 'src/app/routes/pricing.route.tsx' },
  { path: '/faq', file: 'faq.html', module: 'src/app/routes/faq.route.tsx' },
  { path: '/about', file: 'about.html', module: 'src/app/routes/about.route.tsx' },
  { path: '/support', file: 'support.html', module: 'src/app/routes/support.route.tsx' },
  { path: '/servers', file: 'servers.html', module: 'src/app/routes/servers.route.tsx' },
];

export type RenderedPage = { html: string; head: PageHead | null };

export async function renderPage(path: string): Promise<RenderedPage> {
  const handler = createStaticHandler(appRoutes());
  const context = await handler.query(new Request(new URL(path, 'http://prerender.invalid')));
  if (context instanceof Response) throw new Error(`${path} answered a redirect (${context.status}) at build time`);
  if (context.errors) throw new Error(`${path} failed to render at build time: ${JSON.stringify(context.errors)}`);
  const router = createStaticRouter(handler.dataRoutes, context);
  let head: PageHead | null = null;
  const html = renderToString(
    <StrictMode>
      <PageHeadSink.Provider
        value={(given) => {
          head = given;
        }}
      >
        <AppProviders>
          {/* No hydration data: the routes have no loaders, and the policy allows no inline script to carry it. */}
          <StaticRouterProvider router={router} context={context} hydrate={false} />
        </AppProviders>
      </PageHeadSink.Provider>
    </StrictMode>,
  );
  return { html, head };
}
