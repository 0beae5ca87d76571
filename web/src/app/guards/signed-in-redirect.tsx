import { useEffect } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { useAuth } from '../../lib/auth/auth-provider';
import { useAutoRedirectSuspended } from '../../lib/auth/auto-redirect';
import { autoRedirectTarget } from '../../lib/redirects';

/**
 * Spec §2 "Automatic redirect for signed-in users": on /, /pricing, /faq, /contact, /login, /about,
 * /post-checkout, /app and /auth/callback a signed-in person goes to `next` (a same-site path) or
 * to their role's home. It fires on page load once the session is restored and on sign-in events,
 * except while a screen has paused it to finish its own flow (the post-checkout submit).
 */
export function SignedInRedirect() {
  const { session } = useAuth();
  const suspended = useAutoRedirectSuspended();
  const location = useLocation();
  const navigate = useNavigate();
  const target = suspended ? null : autoRedirectTarget(location, session?.user, session !== null);

  useEffect(() => {
    if (target) void navigate(target, { replace: true });
  }, [target, navigate, location.key]);

  return null;
}
