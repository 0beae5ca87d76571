import { useEffect, type ReactNode } from 'react';
import { Navigate } from 'react-router-dom';
import { useAuth } from '../../lib/auth/auth-provider';
import { adminGuardDecision } from '../../lib/redirects';

/**
 * Spec §2 admin guard: asks /api/me whether the signed-in email is in the admin list (or the role
 * or account type is admin). Renders nothing while pending; with no session, a non-admin or a
 * failed check, replaces the location with /app/personal/overview.
 */
export function AdminGuard({ children }: { children: ReactNode }) {
  const { session, me, meLoading, meFailed, isAdmin } = useAuth();
  const decision = adminGuardDecision({
    signedIn: session !== null,
    pending: meLoading || (session !== null && !me && !meFailed),
    failed: meFailed,
    isAdmin,
  });

  useEffect(() => {
    // Spec §8: a failed admin check is logged and treated as not admin.
    if (meFailed) console.error('Admin check failed: /api/me did not answer.');
  }, [meFailed]);

  if (decision.kind === 'pending') return null;
  if (decision.kind === 'redirect') return <Navigate to={decision.to} replace />;
  return <>{children}</>;
}
