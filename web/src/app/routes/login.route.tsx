import { LoginForm } from '../../features/auth/components/login-form';
import { PageTitle } from '../../ui';

export default function LoginRoute() {
  return (
    <>
      <PageTitle
        title="Sign in"
        description="Sign in to Quietwire to manage your devices, your plan and your account."
      />
      <LoginForm />
    </>
  );
}
