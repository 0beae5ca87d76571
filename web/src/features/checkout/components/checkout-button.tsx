import type { Plan } from '@qw/contracts';
import { useState } from 'react';
import { Alert, Button } from '../../../ui';
import { useCreateCheckoutSession } from '../api/create-checkout-session';

export const checkoutFailedMessage = 'We couldn’t start checkout. Please try again in a moment.';

/**
 * 'Get {name}'; 'Redirecting…' and disabled while checkout starts (spec §2 "Pricing button"). A
 * failure is the spec's alert, shown under the button in the page.
 */
export function CheckoutButton({ plan }: { plan: Plan }) {
  const checkout = useCreateCheckoutSession();
  const [failed, setFailed] = useState(false);

  function start() {
    setFailed(false);
    checkout.mutate(plan, {
      onSuccess: (url) => window.location.assign(url),
      onError: (error) => {
        console.error(error);
        setFailed(true);
      },
    });
  }

  return (
    <>
      <Button block onClick={start} busy={checkout.isPending} busyText="Redirecting…">
        Get {plan.name}
      </Button>
      {failed && <Alert tone="error">{checkoutFailedMessage}</Alert>}
    </>
  );
}
