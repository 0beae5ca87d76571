import { useParams } from 'react-router-dom';
import { TestCheckout } from '../../features/checkout/components/test-checkout';
import { PageTitle } from '../../ui';

/** The local test provider's checkout page (development and tests). */
export default function TestCheckoutRoute() {
  const { id = '' } = useParams();
  return (
    <>
      <PageTitle title="Test checkout" description="Quietwire test checkout: no card is charged." />
      <TestCheckout key={id} sessionId={id} />
    </>
  );
}
