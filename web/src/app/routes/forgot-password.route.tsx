import { ForgotPasswordForm } from '../../features/auth/components/forgot-password-form';
import { PageTitle } from '../../ui';

export default function ForgotPasswordRoute() {
  return (
    <>
      <PageTitle title="Reset your password" description="Get an email with a link to set a new Quietwire password." />
      <ForgotPasswordForm />
    </>
  );
}
