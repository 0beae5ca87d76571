import { useEffect, useRef } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { useAuth } from '../../lib/auth/auth-provider';
import { protectedRedirect } from '../../lib/redirects';

/**
 * Spec §2 "Protected wrapper": with no session, to /login remembering where the visitor was going
 * (/login?next=…); the exact path /admin for a non-admin, to /app/personal/overview.
 */
export function ProtectedRoute() {
  const { session, user, loading, signedOutReason, acknowledgeSignOut } = useAuth();
  const location = useLocation();
  // Signed out with the Sign out button: that button is on its way to /. This wrapper stays empty
  // until it unmounts instead of sending the person to /login first; the next one behaves normally.
  const leaving = useRef(false);
  if (!session && signedOutReason === 'user') leaving.current = true;

  useEffect(
    () => () => {
      if (leaving.current) acknowledgeSignOut();
    },
    [acknowledgeSignOut],
  );

  if (!session) {
    if (leaving.current) return null;
    // Still restoring the session from the refresh cookie.
    if (loading) return <RoutePending />;
  }
  const target = protectedRedirect(location, session !== null, user);
  if (target) return <Navigate to={target} replace />;
  return <Outlet />;
}

/** Nothing to show yet; announced for screen readers, invisible otherwise. */
export function RoutePending() {
  return (
    <p className="qw-visually-hidden" role="status">
      Loading…
    </p>
  );
}
