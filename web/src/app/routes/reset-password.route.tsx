import { ResetPasswordForm } from '../../features/auth/components/reset-password-form';
import { PageTitle } from '../../ui';

export default function ResetPasswordRoute() {
  return (
    <>
      <PageTitle title="Set a new password" description="Choose a new password for your Quietwire account." />
      <ResetPasswordForm />
    </>
  );
}
