import { useEffect } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { useAuth } from '../../lib/auth/auth-provider';
import { useAutoRedirectSuspended } from '../../lib/auth/auto-redirect';
import { autoRedirectTarget, landingSubject, viewingSiteAfter } from '../../lib/redirects';
import { readViewSite, writeViewSite } from '../../lib/view-site';

/**
 * Spec §2 "Automatic redirect for signed-in users": on /, /pricing, /faq, /contact, /login, /about,
 * /post-checkout, /app and /auth/callback a signed-in person goes to `next` (a same-site path) or
 * to their role's home (a member of an organization counts as business, spec §6). It fires on page load once the session is restored and on sign-in events,
 * except while a screen has paused it to finish its own flow (the post-checkout submit), and on
 * the public pages after the console's "View Site" link (`/?view=site`) until the person goes back
 * into an area.
 */
export function SignedInRedirect() {
  const { session, me, meFailed } = useAuth();
  const suspended = useAutoRedirectSuspended();
  const location = useLocation();
  const navigate = useNavigate();
  const userId = session?.user.id;
  const viewingSite = viewingSiteAfter(location, readViewSite(userId));
  // Organization membership (spec §6) comes from /api/me: the role's home waits for it.
  const subject = landingSubject(session?.user, me, meFailed);
  const target = suspended ? null : autoRedirectTarget(location, subject, session !== null, viewingSite);

  useEffect(() => {
    if (userId) writeViewSite(userId, viewingSite);
  }, [userId, viewingSite]);

  useEffect(() => {
    if (target) void navigate(target, { replace: true });
  }, [target, navigate, location.key]);

  return null;
}
