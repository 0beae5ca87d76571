import {
  formatUsd,
  normalizeOrganizationName,
  organizationNameProblem,
  planDisplayName,
  plans,
  unlimitedDevicesText,
  type BillingOverview,
  type Plan,
} from '@qw/contracts';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { formatDate } from '../../../lib/format';
import { Alert, Badge, Button, Card, Field, Input, Modal, Select, Spinner } from '../../../ui';
import { useChangePlan, type PlanChange } from '../api/change-plan';
import { usePlanChangePreview, type PlanChangePreview } from '../api/preview-plan-change';
import { useResumeSubscription } from '../api/resume-subscription';
import { useStartAppCheckout } from '../api/start-app-checkout';
import './billing.css';

type Subscription = NonNullable<BillingOverview['subscription']>;

const personalPlans = plans.filter((plan) => plan.accountType === 'personal');
const businessPlans = plans.filter((plan) => plan.accountType === 'business');
const checkoutFailedMessage = 'We couldn’t start checkout. Please try again in a moment.';

const perMonth = (plan: Plan) => `${formatUsd(plan.priceCents)}/month`;
/** What a plan holds, as it is sold: its devices (and members, for a Business plan). */
const planHolds = (plan: Plan) =>
  plan.devices === null ? unlimitedDevicesText : `${plan.devices} devices, up to ${plan.userCap} members`;

/** What a previewed change does, in one sentence for the page and the confirmation. */
export function previewText(preview: PlanChangePreview, current: Subscription): string {
  const target = planDisplayName(preview.plan_code);
  const date = formatDate(preview.next_charge_at);
  if (preview.takes_effect === 'now')
    return `Charged now: ${formatUsd(preview.charge_now_cents)} for the rest of this period on ${target}. Then ${formatUsd(preview.next_charge_cents)} a month from ${date}.`;
  if (preview.plan_code === current.plan)
    return `Nothing is charged now. You stay on ${target}: the change to ${planDisplayName(current.pending_plan)} is called off, and ${date} renews at ${formatUsd(preview.next_charge_cents)}.`;
  return `Nothing is charged now. You keep ${planDisplayName(current.plan)} until ${date}; then ${target} renews at ${formatUsd(preview.next_charge_cents)} a month.`;
}

function changedText(change: PlanChange): string {
  const plan = planDisplayName(change.subscription.plan);
  if (change.takes_effect === 'now')
    return `You’re now on ${plan}.${change.charged_cents > 0 ? ` ${formatUsd(change.charged_cents)} was charged for the rest of this period.` : ''}`;
  if (change.subscription.pending_plan)
    return `You keep ${plan} until ${formatDate(change.subscription.renews_at)}; then ${planDisplayName(change.subscription.pending_plan)} begins.`;
  return `You stay on ${plan}.`;
}

/** Radio choices of plans with their prices; the current (and a waiting) plan marked. */
function PlanRadios({
  name,
  options,
  selected,
  onSelect,
  current,
  pending,
  pendingFrom,
}: {
  name: string;
  options: readonly Plan[];
  selected: string | null;
  onSelect: (code: string) => void;
  current?: string | undefined;
  pending?: string | null | undefined;
  pendingFrom?: string | null | undefined;
}) {
  return (
    <div className="billing-options" role="radiogroup" aria-label="Plan">
      {options.map((plan) => (
        <label key={plan.code} className="billing-option">
          <input
            type="radio"
            name={name}
            value={plan.code}
            checked={selected === plan.code}
            onChange={() => onSelect(plan.code)}
          />
          <span className="billing-option__name">{plan.name}</span>
          <span className="billing-option__price">{perMonth(plan)}</span>
          {current === plan.code && <Badge tone="success">Current plan</Badge>}
          {pending === plan.code && <Badge tone="warning">From {formatDate(pendingFrom)}</Badge>}
          <span className="billing-option__holds qw-small qw-muted">{planHolds(plan)}</span>
        </label>
      ))}
    </div>
  );
}

/**
 * Change between Personal and Gaming, or (an organization's owners) between the Business plans,
 * with the charge shown before it is confirmed.
 */
function ChangePlanCard({
  subscription,
  preselect,
  options = personalPlans,
}: {
  subscription: Subscription;
  preselect: string | null;
  options?: readonly Plan[];
}) {
  const initial =
    preselect && options.some((plan) => plan.code === preselect) ? preselect : (subscription.pending_plan ?? null);
  const [selected, setSelected] = useState<string | null>(initial);
  const [confirming, setConfirming] = useState(false);
  const [result, setResult] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const change = useChangePlan();
  // The current plan is asked about only to call off a waiting downgrade.
  const asks =
    selected !== null && (selected !== subscription.plan || Boolean(subscription.pending_plan)) ? selected : null;
  const preview = usePlanChangePreview(subscription.id, asks);
  const nothingToDo = asks === null || (selected === subscription.pending_plan && selected !== subscription.plan);
  const target = asks ? planDisplayName(asks) : '';
  const label = asks === subscription.plan ? `Keep ${target}` : `Change to ${target}`;

  function onConfirm() {
    if (!asks) return;
    change.mutate(
      { subscription_id: subscription.id, plan_code: asks },
      {
        onSuccess: (changed) => {
          setConfirming(false);
          setSelected(changed.subscription.pending_plan ?? null);
          setResult({ tone: 'success', text: changedText(changed) });
        },
        onError: (failure) => {
          setConfirming(false);
          setResult({
            tone: 'error',
            text: failureMessage(failure, 'We couldn’t change the plan. Please try again in a moment.'),
          });
        },
      },
    );
  }

  return (
    <Card as="section" aria-labelledby="change-plan-title" className="billing-plan-card">
      <h2 id="change-plan-title" className="qw-card__title">
        Change plan
      </h2>
      <p className="qw-muted qw-small">
        An upgrade starts now and charges the difference for the rest of this period; a downgrade starts at your next
        renewal.
        {options === businessPlans && ' A smaller plan must hold the members and devices the organization has now.'}
      </p>
      {result && (
        <div data-testid="plan-change-result">
          <Alert tone={result.tone}>{result.text}</Alert>
        </div>
      )}
      <PlanRadios
        name="change-plan"
        options={options}
        selected={selected}
        onSelect={(code) => {
          setResult(null);
          setSelected(code);
        }}
        current={subscription.plan}
        pending={subscription.pending_plan}
        pendingFrom={subscription.renews_at}
      />
      {asks && !nothingToDo && (
        <div aria-live="polite">
          {preview.isPending ? (
            <p className="qw-muted qw-cluster">
              <Spinner /> Working out the price…
            </p>
          ) : preview.isError ? (
            <Alert tone="error">
              {failureMessage(preview.error, 'We couldn’t work out the price. Please try again in a moment.')}
            </Alert>
          ) : (
            <p data-testid="plan-change-preview">{previewText(preview.data, subscription)}</p>
          )}
        </div>
      )}
      {asks && !nothingToDo && (
        <div>
          <Button disabled={!preview.data} onClick={() => setConfirming(true)}>
            {label}
          </Button>
        </div>
      )}
      <Modal
        open={confirming}
        title={asks === subscription.plan ? `Keep ${target}?` : `Change to ${target}?`}
        confirmLabel={label}
        cancelLabel="Not now"
        busy={change.isPending}
        busyText="Changing…"
        onConfirm={onConfirm}
        onCancel={() => setConfirming(false)}
      >
        {preview.data && <p>{previewText(preview.data, subscription)}</p>}
      </Modal>
    </Card>
  );
}

/** A plan set to end with its period: Resume makes it renew again. */
function ResumeCard({ subscription }: { subscription: Subscription }) {
  const resume = useResumeSubscription();
  const [error, setError] = useState<string | null>(null);
  return (
    <Card as="section" aria-labelledby="resume-plan-title" className="billing-plan-card">
      <h2 id="resume-plan-title" className="qw-card__title">
        Your plan is set to end
      </h2>
      <p>
        Your {planDisplayName(subscription.plan)} plan ends on {formatDate(subscription.renews_at)} and won’t renew.
        Resume it to keep your devices working after that date; nothing is charged until then.
      </p>
      {error && <Alert tone="error">{error}</Alert>}
      <div>
        <Button
          busy={resume.isPending}
          busyText="Resuming…"
          onClick={() => {
            setError(null);
            resume.mutate(subscription.id, {
              onError: (failure) =>
                setError(failureMessage(failure, 'We couldn’t resume the plan. Please try again in a moment.')),
            });
          }}
        >
          Resume plan
        </Button>
      </div>
    </Card>
  );
}

/** No plan, or one that ended: choose one and pay as the signed-in person. */
function SubscribeCard({ subscription, preselect }: { subscription: Subscription | null; preselect: string | null }) {
  const [selected, setSelected] = useState<string>(
    preselect && personalPlans.some((plan) => plan.code === preselect)
      ? preselect
      : (personalPlans.find((plan) => plan.code === subscription?.plan)?.code ?? 'personal'),
  );
  const checkout = useStartAppCheckout();
  const [error, setError] = useState<string | null>(null);
  const ended = subscription?.status === 'canceled';
  const plan = personalPlans.find((p) => p.code === selected);

  return (
    <Card as="section" aria-labelledby="subscribe-title" className="billing-plan-card">
      <h2 id="subscribe-title" className="qw-card__title">
        {ended ? 'Subscribe again' : 'Choose a plan'}
      </h2>
      <p>
        {ended
          ? `Your ${planDisplayName(subscription?.plan)} plan has ended, so your devices are inactive. Choose a plan to turn them back on.`
          : 'You have no plan yet. Choose one to add and connect devices.'}
      </p>
      {error && <Alert tone="error">{error}</Alert>}
      <PlanRadios name="subscribe-plan" options={personalPlans} selected={selected} onSelect={setSelected} />
      <div>
        <Button
          busy={checkout.isPending}
          busyText="Redirecting…"
          onClick={() => {
            setError(null);
            checkout.mutate(
              { plan_code: selected },
              {
                onSuccess: (started) => window.location.assign(started.url),
                onError: (failure) => setError(failureMessage(failure, checkoutFailedMessage)),
              },
            );
          }}
        >
          {plan ? `Subscribe to ${plan.name}` : 'Subscribe'}
        </Button>
      </div>
    </Card>
  );
}

/** A Business plan bought by the signed-in person: it makes an organization they own, with the name they choose. */
function BusinessPurchaseCard({ preselect }: { preselect: string | null }) {
  const preselected = businessPlans.some((plan) => plan.code === preselect);
  const [planCode, setPlanCode] = useState<string>(preselected && preselect ? preselect : 'business10');
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<{ field: 'org_name' | 'form'; text: string } | null>(null);
  const checkout = useStartAppCheckout();
  const cardRef = useRef<HTMLDivElement>(null);
  const nameId = useId();

  useEffect(() => {
    if (preselected) cardRef.current?.scrollIntoView({ block: 'center' });
  }, [preselected]);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (checkout.isPending) return;
    const orgName = normalizeOrganizationName(name);
    const nameProblem = organizationNameProblem(orgName);
    if (nameProblem) {
      setProblem({ field: 'org_name', text: nameProblem });
      document.getElementById(nameId)?.focus();
      return;
    }
    setProblem(null);
    checkout.mutate(
      { plan_code: planCode, org_name: orgName },
      {
        onSuccess: (started) => window.location.assign(started.url),
        onError: (failure) => setProblem({ field: 'form', text: failureMessage(failure, checkoutFailedMessage) }),
      },
    );
  }

  return (
    <div ref={cardRef}>
      <Card as="section" aria-labelledby="business-buy-title" className="billing-plan-card">
        <h2 id="business-buy-title" className="qw-card__title">
          Buy a Business plan
        </h2>
        <p className="qw-muted qw-small">
          Start an organization for your team: you become its owner, invite people and manage their devices. Your
          personal plan is not affected.
        </p>
        <form className="qw-stack" onSubmit={onSubmit} noValidate aria-label="Buy a Business plan">
          {problem?.field === 'form' && <Alert tone="error">{problem.text}</Alert>}
          <BusinessPlanField id={`${nameId}-plan`} value={planCode} onChange={setPlanCode} />
          <Field
            id={nameId}
            label="Organization name"
            required
            error={problem?.field === 'org_name' ? problem.text : undefined}
          >
            <Input value={name} onChange={(event) => setName(event.target.value)} autoComplete="organization" />
          </Field>
          <div>
            <Button type="submit" busy={checkout.isPending} busyText="Redirecting…">
              Continue to payment
            </Button>
          </div>
        </form>
      </Card>
    </div>
  );
}

/**
 * The personal Billing page's ways to act on the plan (issue #15): change between Personal and
 * Gaming with the charge shown first, resume a plan set to end, subscribe again after one ended,
 * and buy a Business plan (making an organization). `preselect` is the plan chosen before sign-in
 * (`?plan=` from the pricing page's 'Sign in first').
 */
export function PersonalPlanActions({
  subscription,
  loading,
  preselect,
}: {
  subscription: Subscription | null | undefined;
  loading: boolean;
  preselect: string | null;
}) {
  if (loading || subscription === undefined) return null;
  const running = subscription !== null && (subscription.status === 'active' || subscription.status === 'past_due');
  return (
    <>
      {subscription && running && subscription.cancel_at_period_end ? (
        <ResumeCard subscription={subscription} />
      ) : subscription && subscription.status === 'active' ? (
        <ChangePlanCard key={subscription.id} subscription={subscription} preselect={preselect} />
      ) : running ? null : (
        <SubscribeCard subscription={subscription} preselect={preselect} />
      )}
      <BusinessPurchaseCard preselect={preselect} />
    </>
  );
}

/**
 * The business Billing page: its owners move between Business 10, 50 and 250 with the charge
 * shown first (issue #26), resume a plan set to end, and pay again for a plan that ended (issue
 * #15); the same organization becomes Active again. Admins read the plan and are told who acts.
 */
export function OrganizationPlanActions({
  orgId,
  orgName,
  isOwner,
  subscription,
  loading,
}: {
  orgId: string;
  orgName: string;
  isOwner: boolean;
  subscription: Subscription | null | undefined;
  loading: boolean;
}) {
  if (loading || subscription === undefined) return null;
  if (subscription && subscription.status !== 'canceled') {
    if (!isOwner) return null;
    if (subscription.cancel_at_period_end) return <ResumeCard subscription={subscription} />;
    if (subscription.status === 'active')
      return (
        <ChangePlanCard key={subscription.id} subscription={subscription} preselect={null} options={businessPlans} />
      );
    return null;
  }
  return <OrganizationRenewCard orgId={orgId} orgName={orgName} isOwner={isOwner} subscription={subscription} />;
}

/** An organization whose plan ended (or never began): its owners choose a Business plan and pay. */
function OrganizationRenewCard({
  orgId,
  orgName,
  isOwner,
  subscription,
}: {
  orgId: string;
  orgName: string;
  isOwner: boolean;
  subscription: Subscription | null;
}) {
  const [planCode, setPlanCode] = useState<string>(
    businessPlans.find((plan) => plan.code === subscription?.plan)?.code ?? 'business10',
  );
  const checkout = useStartAppCheckout();
  const [error, setError] = useState<string | null>(null);
  const selectId = useId();
  return (
    <Card as="section" aria-labelledby="org-renew-title" className="billing-plan-card">
      <h2 id="org-renew-title" className="qw-card__title">
        Subscribe again
      </h2>
      <p>
        {subscription
          ? `The ${planDisplayName(subscription.plan)} plan of ${orgName} has ended, so ${orgName} is Suspended and its devices are off.`
          : `${orgName} has no plan, so its devices are off.`}{' '}
        {isOwner ? 'Choose a Business plan to make it Active again.' : 'Ask one of its owners to choose a plan.'}
      </p>
      {isOwner && (
        <>
          {error && <Alert tone="error">{error}</Alert>}
          <BusinessPlanField id={selectId} value={planCode} onChange={setPlanCode} />
          <div>
            <Button
              busy={checkout.isPending}
              busyText="Redirecting…"
              onClick={() => {
                setError(null);
                checkout.mutate(
                  { plan_code: planCode, org_id: orgId },
                  {
                    onSuccess: (started) => window.location.assign(started.url),
                    onError: (failure) => setError(failureMessage(failure, checkoutFailedMessage)),
                  },
                );
              }}
            >
              Continue to payment
            </Button>
          </div>
        </>
      )}
    </Card>
  );
}

/** The Business plans to buy, each with its devices and monthly price (a new organization, or one paying again). */
function BusinessPlanField({ id, value, onChange }: { id: string; value: string; onChange: (code: string) => void }) {
  return (
    <Field id={id} label="Business plan">
      <Select
        value={value}
        onChange={(event) => onChange(event.target.value)}
        options={businessPlans.map((plan) => ({
          value: plan.code,
          label: `${plan.name} — ${plan.devices} devices, ${perMonth(plan)}`,
        }))}
      />
    </Field>
  );
}
