import type { Plan } from '@qw/contracts';
import { Button } from '../../../ui';
import { useCreateCheckoutSession } from '../api/create-checkout-session';

export const checkoutFailedMessage = 'We couldn’t start checkout. Please try again in a moment.';

/** 'Get {name}'; 'Redirecting…' and disabled while checkout starts (spec §2 "Pricing button"). */
export function CheckoutButton({ plan }: { plan: Plan }) {
  const checkout = useCreateCheckoutSession();

  function start() {
    checkout.mutate(plan, {
      onSuccess: (url) => window.location.assign(url),
      onError: (error) => {
        console.error(error);
        window.alert(checkoutFailedMessage);
      },
    });
  }

  return (
    <Button block onClick={start} busy={checkout.isPending} busyText="Redirecting…">
      Get {plan.name}
    </Button>
  );
}
