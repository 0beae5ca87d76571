import type { ComponentType } from 'react';
import { createBrowserRouter } from 'react-router-dom';
import { PublicLayout } from './layouts/public-layout';
import { RouteError } from './route-error';

/** Every screen is its own lazy chunk; a route module's default export is its component. */
function screen(load: () => Promise<{ default: ComponentType }>) {
  return async () => ({ Component: (await load()).default });
}

export function createRouter() {
  return createBrowserRouter([
    {
      Component: PublicLayout,
      ErrorBoundary: RouteError,
      HydrateFallback: () => null,
      children: [
        { index: true, lazy: screen(() => import('./routes/home.route')) },
        { path: 'pricing', lazy: screen(() => import('./routes/pricing.route')) },
        { path: 'faq', lazy: screen(() => import('./routes/faq.route')) },
        { path: 'about', lazy: screen(() => import('./routes/about.route')) },
        { path: 'contact', lazy: screen(() => import('./routes/contact.route')) },
        { path: '*', lazy: screen(() => import('./routes/not-found.route')) },
      ],
    },
    {
      ErrorBoundary: RouteError,
      HydrateFallback: () => null,
      children: [
        { path: 'login', lazy: screen(() => import('./routes/login.route')) },
        { path: 'auth/callback', lazy: screen(() => import('./routes/auth-callback.route')) },
        { path: 'post-checkout', lazy: screen(() => import('./routes/post-checkout.route')) },
        { path: 'dashboard', lazy: screen(() => import('./routes/dashboard.route')) },
        { path: 'app', lazy: screen(() => import('./routes/app.route')) },
        { path: 'app/personal/*', lazy: screen(() => import('./routes/app-personal.route')) },
        { path: 'app/business/*', lazy: screen(() => import('./routes/app-business.route')) },
        { path: 'admin/*', lazy: screen(() => import('./routes/admin.route')) },
        // Unlisted: every ui component on one page, for developers and the browser tests.
        { path: 'design-system/*', lazy: screen(() => import('./routes/design-system.route')) },
      ],
    },
  ]);
}
