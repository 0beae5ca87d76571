import { formatUsd, planDisplayName, refundWindowDays } from '@qw/contracts';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { formatDate } from '../../../lib/format';
import { Alert, Badge, Button, ButtonLink, Card, Field, Input, Modal } from '../../../ui';
import { useChangeCard } from '../api/change-card';
import { useBilling } from '../api/get-billing';
import { useCancelSubscription, type CancelOutcome } from '../api/cancel-subscription';
import { BillingLoadError } from './billing-overview';
import { InvoiceTable } from './invoice-table';
import { StatusBadge } from './subscription-status';
import './billing.css';

const cancelFailedMessage = 'We couldn’t cancel the subscription. Please try again in a moment.';

export function cancelOutcomeText(outcome: CancelOutcome, renewsAt: string | null | undefined): string {
  if (outcome.refunded_cents > 0)
    return `Your subscription is canceled and ${formatUsd(outcome.refunded_cents)} was refunded in full.`;
  const ends = `Your subscription will end on ${formatDate(renewsAt)}, at the end of the paid period. You won’t be charged again.`;
  if (outcome.cancel_at_period_end && outcome.money_back === 'already_used')
    return `${ends} The ${refundWindowDays}-day money-back refund is once per customer and was used already.`;
  if (outcome.cancel_at_period_end) return ends;
  return 'Your subscription is canceled.';
}

/**
 * The local test provider's billing portal (development and tests; Stripe has its own): the plan,
 * its status and renewal date, the invoices, and Cancel subscription with the 7-day money-back rule.
 */
export function TestBillingPortal({ orgId, returnPath }: { orgId: string | null; returnPath: string }) {
  const billing = useBilling(orgId);
  const cancel = useCancelSubscription();
  const [confirming, setConfirming] = useState(false);
  const [result, setResult] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const resultRef = useRef<HTMLDivElement>(null);
  const subscription = billing.data?.subscription ?? null;

  useEffect(() => {
    if (result) resultRef.current?.focus();
  }, [result]);

  function onConfirm() {
    if (!subscription) return;
    const renewsAt = subscription.renews_at;
    cancel.mutate(subscription.id, {
      onSuccess: (outcome) => {
        setConfirming(false);
        setResult({ tone: 'success', text: cancelOutcomeText(outcome, renewsAt) });
      },
      onError: (failure) => {
        setConfirming(false);
        setResult({ tone: 'error', text: failureMessage(failure, cancelFailedMessage, { network: false }) });
      },
    });
  }

  const cancellable = subscription !== null && subscription.status !== 'canceled' && !subscription.cancel_at_period_end;

  return (
    <Card className="focus-card focus-card--wide">
      <div className="qw-stack qw-stack--sm">
        <span className="billing-test-badge">
          <Badge tone="warning">Test mode — no card is charged</Badge>
        </span>
        <h1>Billing portal</h1>
        <p className="qw-muted">
          Quietwire’s test payment provider. Changing the card or cancelling here works like the real portal, without
          money moving.
        </p>
      </div>

      {result && (
        <Alert ref={resultRef} tone={result.tone}>
          {result.text}
        </Alert>
      )}
      {billing.isError && <BillingLoadError error={billing.error} />}

      <section className="qw-stack" aria-labelledby="portal-plan-title">
        <h2 id="portal-plan-title" className="qw-card__title">
          Current plan
        </h2>
        {billing.isPending ? (
          <p className="qw-muted">Loading…</p>
        ) : subscription ? (
          <dl className="billing-facts" data-testid="portal-plan">
            <dt>Plan</dt>
            <dd>{planDisplayName(subscription.plan)}</dd>
            <dt>Status</dt>
            <dd>
              <StatusBadge status={subscription.status} />
            </dd>
            <dt>{subscription.cancel_at_period_end ? 'Ends on' : 'Renews on'}</dt>
            <dd>{subscription.renews_at ? formatDate(subscription.renews_at) : '—'}</dd>
            <dt>Card</dt>
            <dd data-testid="portal-card">{subscription.card ?? '—'}</dd>
          </dl>
        ) : (
          <p>You have no subscription here yet.</p>
        )}
        {cancellable && (
          <div>
            <Button variant="danger" onClick={() => setConfirming(true)}>
              Cancel subscription
            </Button>
          </div>
        )}
      </section>

      {subscription && subscription.status !== 'canceled' && (
        <CardForm subscriptionId={subscription.id} pastDue={subscription.status === 'past_due'} />
      )}

      <InvoiceTable invoices={billing.data?.invoices} loading={billing.isPending} />

      <div>
        <ButtonLink to={returnPath} variant="secondary">
          Back to Quietwire
        </ButtonLink>
      </div>

      <Modal
        open={confirming}
        title="Cancel your subscription?"
        confirmLabel="Cancel subscription"
        cancelLabel="Keep subscription"
        confirmVariant="danger"
        busy={cancel.isPending}
        busyText="Cancelling…"
        onConfirm={onConfirm}
        onCancel={() => setConfirming(false)}
      >
        <p>
          Within {refundWindowDays} days of your first payment, cancelling refunds that payment in full and ends the
          plan now, once per customer. After {refundWindowDays} days, or if you had this refund before, the plan stays
          active until the end of the period you paid for and is not renewed.
        </p>
      </Modal>
    </Card>
  );
}

const cardFailedMessage = 'We couldn’t update the card. Please try again in a moment.';

/**
 * "Update card": renewals are charged to the new card; a renewal that failed is paid with it at
 * once (the plan is active again and its receipt is mailed). The number never leaves this form
 * except to the test provider, which keeps its brand and last four digits only.
 */
function CardForm({ subscriptionId, pastDue }: { subscriptionId: string; pastDue: boolean }) {
  const change = useChangeCard();
  const [number, setNumber] = useState('');
  const [result, setResult] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const id = useId();

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (change.isPending) return;
    setResult(null);
    change.mutate(
      { subscriptionId, cardNumber: number },
      {
        onSuccess: (changed) => {
          setNumber('');
          const paid =
            changed.settled_cents > 0
              ? ` The failed renewal of ${formatUsd(changed.settled_cents)} was paid with it; your plan is active again.`
              : '';
          setResult({ tone: 'success', text: `Your card is now ${changed.card}.${paid}` });
        },
        onError: (failure) => setResult({ tone: 'error', text: failureMessage(failure, cardFailedMessage) }),
      },
    );
  }

  return (
    <section className="qw-stack" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="qw-card__title">
        Update card
      </h2>
      <p className="qw-muted qw-small">
        {pastDue
          ? 'Your last renewal failed. A new card pays it now, and renewals are charged to it from then on.'
          : 'Renewals are charged to the new card from the next one on.'}{' '}
        Test cards: 4242 4242 4242 4242 pays, 4000 0000 0000 0002 declines.
      </p>
      <form className="qw-stack" onSubmit={onSubmit} noValidate aria-label="Update card">
        <Field id={`${id}-number`} label="Card number" error={result?.tone === 'error' ? result.text : undefined}>
          <Input
            value={number}
            onChange={(event) => setNumber(event.target.value)}
            inputMode="numeric"
            autoComplete="cc-number"
            maxLength={32}
            required
          />
        </Field>
        {result?.tone === 'success' && (
          <div data-testid="card-result" role="status">
            <Alert tone="success">{result.text}</Alert>
          </div>
        )}
        <div>
          <Button type="submit" variant="secondary" busy={change.isPending} busyText="Updating…">
            Update card
          </Button>
        </div>
      </form>
    </section>
  );
}
