import { useState } from 'react';
import { RouterProvider } from 'react-router-dom';
import { AppProviders } from './providers';
import { createRouter } from './router';

type AppRouter = ReturnType<typeof createRouter>;

/** `router`: one made beforehand (a prerendered page's, whose first screen is already loaded). */
export function App({ router: given }: { router?: AppRouter }) {
  const [router] = useState(() => given ?? createRouter());
  return (
    <AppProviders>
      <RouterProvider router={router} />
    </AppProviders>
  );
}
