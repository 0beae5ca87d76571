import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { failureMessage, hasErrorCode, isApiError } from '../../../lib/api-client';
import { useAuth } from '../../../lib/auth/auth-provider';
import { formatAmount } from '../../../lib/format';
import { Alert, Badge, Button, ButtonLink, Card, Field, Input, Spinner } from '../../../ui';
import { useTestCheckout } from '../api/get-test-checkout';
import { usePayTestCheckout } from '../api/pay-test-checkout';
import './purchase.css';

export const testCardNumber = '4242 4242 4242 4242';
export const declinedCardNumber = '4000 0000 0000 0002';
const payFailedMessage = 'The payment didn’t go through. Please try again in a moment.';

type Problem = { field: 'email' | 'card_number' | 'form'; text: string };

/**
 * /test-checkout/:id — the local test provider's payment page (development and tests): plainly
 * marked as a test, no card is charged. On success the browser goes on to /post-checkout?sid=….
 */
export function TestCheckout({ sessionId }: { sessionId: string }) {
  const checkout = useTestCheckout(sessionId);
  const pay = usePayTestCheckout();
  const [email, setEmail] = useState('');
  const [card, setCard] = useState(testCardNumber);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [leaving, setLeaving] = useState(false);
  const alertRef = useRef<HTMLDivElement>(null);
  // Bought inside the app: the purchase is added to the signed-in account, so it is paid with its address.
  const signedInEmail = useAuth().user?.email;
  useEffect(() => {
    if (signedInEmail) setEmail((typed) => typed || signedInEmail);
  }, [signedInEmail]);

  useEffect(() => {
    if (!problem) return;
    if (problem.field === 'form') alertRef.current?.focus();
    else document.getElementById(`test-checkout-${problem.field === 'email' ? 'email' : 'card'}`)?.focus();
  }, [problem]);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (pay.isPending || leaving) return;
    setProblem(null);
    pay.mutate(
      { sessionId, email: email.trim(), card_number: card },
      {
        onSuccess: (answer) => {
          setLeaving(true);
          window.location.assign(answer.redirect_url);
        },
        onError: (failure) => {
          const field = isApiError(failure) ? failure.details?.field : undefined;
          const text = failureMessage(failure, payFailedMessage, { network: false });
          setProblem({ field: field === 'email' || field === 'card_number' ? field : 'form', text });
        },
      },
    );
  }

  const head = (
    <div className="qw-stack qw-stack--sm">
      <span className="co-test-badge">
        <Badge tone="warning">Test mode — no card is charged</Badge>
      </span>
      <h1>Checkout</h1>
    </div>
  );

  if (checkout.isPending) {
    return (
      <Card className="focus-card">
        {head}
        <p className="co-status" role="status">
          <Spinner />
          Loading your checkout…
        </p>
      </Card>
    );
  }

  if (checkout.isError) {
    const notFound = hasErrorCode(checkout.error, 'not_found');
    return (
      <Card className="focus-card">
        {head}
        <Alert tone="error">
          {notFound
            ? 'We could not find this checkout. Start again from the pricing page.'
            : 'We couldn’t load this checkout. Please reload the page.'}
        </Alert>
        <div>
          <ButtonLink to="/pricing" variant="secondary">
            Back to pricing
          </ButtonLink>
        </div>
      </Card>
    );
  }

  const info = checkout.data;
  const price = formatAmount(info.amount_cents, info.currency);

  if (info.status !== 'open') {
    return (
      <Card className="focus-card">
        {head}
        <Alert tone="success">This checkout for {info.plan_name} is already paid.</Alert>
        <div>
          <ButtonLink to={`/post-checkout?sid=${encodeURIComponent(info.session_id)}`}>
            Continue to create your account
          </ButtonLink>
        </div>
      </Card>
    );
  }

  return (
    <Card className="focus-card">
      {head}
      <dl className="co-summary" data-testid="test-checkout-summary">
        <dt>Plan</dt>
        <dd>{info.plan_name}</dd>
        <dt>Price</dt>
        <dd>{price} per month</dd>
      </dl>
      <p className="qw-muted qw-small">
        This page stands in for the card payment page while Quietwire runs without a payment provider. Nothing is
        charged.
      </p>
      <form className="qw-stack" onSubmit={onSubmit} noValidate aria-label="Pay">
        {problem?.field === 'form' && (
          <Alert ref={alertRef} tone="error">
            {problem.text}
          </Alert>
        )}
        <Field
          id="test-checkout-email"
          label="Email"
          hint="Your Quietwire account will use this address."
          error={problem?.field === 'email' ? problem.text : undefined}
          required
        >
          <Input
            type="email"
            name="email"
            autoComplete="email"
            inputMode="email"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </Field>
        <Field
          id="test-checkout-card"
          label="Card number"
          hint={`Test card ${testCardNumber} pays; ${declinedCardNumber} is always declined.`}
          error={problem?.field === 'card_number' ? problem.text : undefined}
          required
        >
          <Input
            name="card_number"
            autoComplete="off"
            inputMode="numeric"
            required
            value={card}
            onChange={(event) => setCard(event.target.value)}
            className="qw-mono"
          />
        </Field>
        <Button type="submit" block busy={pay.isPending || leaving} busyText="Paying…">
          Pay {price}
        </Button>
      </form>
      <Link to="/pricing" className="qw-small">
        Cancel and go back to pricing
      </Link>
    </Card>
  );
}
