import { AuthCallback } from '../../features/auth/components/auth-callback';
import { PageTitle } from '../../ui';

export default function AuthCallbackRoute() {
  return (
    <>
      <PageTitle title="Email verification" description="Confirming your email address for Quietwire." />
      <AuthCallback />
    </>
  );
}
