import { isRouteErrorResponse, useRouteError } from 'react-router-dom';
import { Alert, Button } from '../ui';

/**
 * Shown when a screen fails to load or render. After a deploy, an old tab may ask for a chunk that
 * no longer exists; reloading fetches the new one.
 */
export function RouteError() {
  const error = useRouteError();
  console.error(error);
  const detail = isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : null;
  return (
    <main id="main" className="qw-placeholder">
      <div className="qw-stack">
        <h1>Something went wrong</h1>
        <Alert tone="error">This page couldn’t be shown{detail ? ` (${detail})` : ''}. Reload to try again.</Alert>
        <div>
          <Button onClick={() => window.location.reload()}>Reload the page</Button>
        </div>
      </div>
    </main>
  );
}
