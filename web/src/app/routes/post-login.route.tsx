import { Navigate } from 'react-router-dom';
import { useAuth } from '../../lib/auth/auth-provider';
import { postLoginDestination } from '../../lib/redirects';
import { PageTitle } from '../../ui';
import { RoutePending } from '../guards/protected-route';

/** Spec §2 "Post-login redirect screen": decides once the session and the profile are known. */
export default function PostLoginRoute() {
  const { session, user, me, loading } = useAuth();
  if (loading) {
    return (
      <>
        <PageTitle title="Signing you in" description="Quietwire is opening your account." />
        <RoutePending />
      </>
    );
  }
  const to = postLoginDestination({
    signedIn: session !== null,
    email: user?.email,
    isAdminListed: me?.is_admin ?? user?.is_admin,
    accountType: me?.profile.account_type ?? user?.account_type,
    orgMember: me?.org_member,
  });
  return <Navigate to={to} replace />;
}
