import type { ComponentType } from 'react';
import { createBrowserRouter, matchRoutes, Navigate, type RouteObject } from 'react-router-dom';
import { ProtectedRoute } from './guards/protected-route';
import { PublicLayout } from './layouts/public-layout';
import { RootLayout } from './layouts/root-layout';
import { RouteError } from './route-error';

/** Every screen (and every layout but the public one) is its own lazy chunk; a module's default export is its component. */
function screen(load: () => Promise<{ default: ComponentType }>) {
  return async () => ({ Component: (await load()).default });
}

/** Nothing is shown while the first route loads (the page is client-rendered). */
function NoFallback() {
  return null;
}

/** Every route of the app; the browser router and the build's prerender (entry-server.tsx) share them. */
export function appRoutes(): RouteObject[] {
  return [
    {
      // Watches every location for the automatic redirect of signed-in people (spec §2).
      Component: RootLayout,
      ErrorBoundary: RouteError,
      HydrateFallback: NoFallback,
      children: [
        {
          Component: PublicLayout,
          ErrorBoundary: RouteError,
          children: [
            { index: true, lazy: screen(() => import('./routes/home.route')) },
            { path: 'pricing', lazy: screen(() => import('./routes/pricing.route')) },
            { path: 'faq', lazy: screen(() => import('./routes/faq.route')) },
            { path: 'about', lazy: screen(() => import('./routes/about.route')) },
            { path: 'contact', lazy: screen(() => import('./routes/contact.route')) },
            { path: 'support', lazy: screen(() => import('./routes/support.route')) },
            { path: 'servers', lazy: screen(() => import('./routes/servers.route')) },
            { path: 'privacy/what-we-store', lazy: screen(() => import('./routes/what-we-store.route')) },
            { path: '*', lazy: screen(() => import('./routes/not-found.route')) },
          ],
        },
        {
          // Full-screen pages with one task each.
          lazy: screen(() => import('./layouts/focus-layout')),
          ErrorBoundary: RouteError,
          children: [
            { path: 'login', lazy: screen(() => import('./routes/login.route')) },
            { path: 'forgot-password', lazy: screen(() => import('./routes/forgot-password.route')) },
            { path: 'account-deleted', lazy: screen(() => import('./routes/account-deleted.route')) },
            { path: 'reset-password', lazy: screen(() => import('./routes/reset-password.route')) },
            { path: 'auth/callback', lazy: screen(() => import('./routes/auth-callback.route')) },
            { path: 'post-login', lazy: screen(() => import('./routes/post-login.route')) },
            { path: 'post-checkout', lazy: screen(() => import('./routes/post-checkout.route')) },
            // An invitation link: signed in or not, the page itself says what comes next.
            { path: 'invite', lazy: screen(() => import('./routes/invite.route')) },
            // The local test payment provider's pages (development and tests).
            { path: 'test-checkout/:id', lazy: screen(() => import('./routes/test-checkout.route')) },
            {
              Component: ProtectedRoute,
              children: [
                { path: 'dashboard', lazy: screen(() => import('./routes/dashboard.route')) },
                { path: 'billing/test-portal', lazy: screen(() => import('./routes/test-portal.route')) },
                // A checkout started in the app comes back here to be added to the signed-in account.
                { path: 'checkout/complete', lazy: screen(() => import('./routes/checkout-complete.route')) },
                // A printable receipt (issue #15): its person, or an organization's owners and admins.
                { path: 'billing/invoices/:id', lazy: screen(() => import('./routes/invoice-receipt.route')) },
              ],
            },
          ],
        },
        {
          // Spec §2 "Protected wrapper": everything below needs a session.
          Component: ProtectedRoute,
          ErrorBoundary: RouteError,
          children: [
            { path: 'app', lazy: screen(() => import('./routes/app.route')) },
            {
              path: 'app/personal',
              lazy: screen(() => import('./routes/personal-area.route')),
              children: [
                { index: true, element: <Navigate to="/app/personal/overview" replace /> },
                { path: 'overview', lazy: screen(() => import('./routes/personal-overview.route')) },
                { path: 'devices', lazy: screen(() => import('./routes/personal-devices.route')) },
                { path: 'account', lazy: screen(() => import('./routes/personal-account.route')) },
                { path: 'billing', lazy: screen(() => import('./routes/personal-billing.route')) },
              ],
            },
            {
              path: 'app/business',
              lazy: screen(() => import('./routes/business-area.route')),
              children: [
                { index: true, element: <Navigate to="/app/business/overview" replace /> },
                { path: 'overview', lazy: screen(() => import('./routes/business-overview.route')) },
                { path: 'devices', lazy: screen(() => import('./routes/business-devices.route')) },
                { path: 'account', lazy: screen(() => import('./routes/business-account.route')) },
                { path: 'billing', lazy: screen(() => import('./routes/business-billing.route')) },
                { path: 'users', lazy: screen(() => import('./routes/business-users.route')) },
                { path: 'activity', lazy: screen(() => import('./routes/business-activity.route')) },
              ],
            },
            {
              // The admin guard lives in the area's frame: pending renders nothing, a non-admin is sent away.
              path: 'admin',
              lazy: screen(() => import('./routes/admin-area.route')),
              children: [
                // Spec §2: the index page shows the overview.
                { index: true, lazy: screen(() => import('./routes/admin-overview.route')) },
                { path: 'overview', lazy: screen(() => import('./routes/admin-overview.route')) },
                { path: 'accounts', lazy: screen(() => import('./routes/admin-accounts.route')) },
                { path: 'accounts/:tab', lazy: screen(() => import('./routes/admin-accounts.route')) },
                { path: 'accounts/users/:id', lazy: screen(() => import('./routes/admin-person.route')) },
                { path: 'devices', lazy: screen(() => import('./routes/admin-devices.route')) },
                { path: 'telemetry', lazy: screen(() => import('./routes/admin-telemetry.route')) },
                { path: 'servers', lazy: screen(() => import('./routes/admin-servers.route')) },
                { path: 'analytics', lazy: screen(() => import('./routes/admin-analytics.route')) },
              ],
            },
          ],
        },
        // Unlisted: every ui component on one page, for developers and the browser tests.
        {
          path: 'design-system/*',
          lazy: screen(() => import('./routes/design-system.route')),
          ErrorBoundary: RouteError,
        },
      ],
    },
  ];
}

export function createRouter() {
  return createBrowserRouter(appRoutes());
}

/**
 * For a prerendered page (web/prerender.ts wrote its HTML at build time): the lazy screens of the
 * current location are loaded first, so the router starts ready and its first render is the same
 * markup the HTML holds. Hydration then adopts that markup instead of showing nothing while the
 * route's chunk loads.
 */
export async function createHydratingRouter() {
  const routes = appRoutes();
  const matches = matchRoutes(routes, window.location) ?? [];
  await Promise.all(
    matches.map(async ({ route }) => {
      if (typeof route.lazy !== 'function') return;
      const loaded = await route.lazy();
      Object.assign(route, loaded, { lazy: undefined });
    }),
  );
  return createBrowserRouter(routes);
}
