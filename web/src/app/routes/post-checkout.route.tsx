import { PostCheckout } from '../../features/checkout/components/post-checkout';
import { PageTitle } from '../../ui';

export default function PostCheckoutRoute() {
  return (
    <>
      <PageTitle
        title="Create your account"
        description="Finish your Quietwire purchase: choose a password for your account."
      />
      <PostCheckout />
    </>
  );
}
