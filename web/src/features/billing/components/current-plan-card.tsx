import { planDisplayName, type BillingOverview } from '@qw/contracts';
import { useState, type MouseEvent } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { formatDate } from '../../../lib/format';
import { buttonClassName, Card, Spinner } from '../../../ui';
import { manageBillingLink, useBillingPortal } from '../api/open-billing-portal';
import { StatusBadge } from './subscription-status';
import './billing.css';

const portalFailedMessage = 'We couldn’t open the billing portal. Please try again in a moment.';

type Subscription = NonNullable<BillingOverview['subscription']>;

/**
 * Spec §2 Billing: 'Current plan' (plan and status, or a dash) with a Manage Billing link to
 * /api/billing/manage. The click asks for the portal address with the bearer token and then goes
 * there; the href is what a new tab or a no-script visit uses (the server sends it to sign-in).
 */
export function CurrentPlanCard({
  subscription,
  loading,
  returnPath,
  orgId,
  manage = true,
}: {
  subscription: Subscription | null | undefined;
  loading: boolean;
  returnPath: string;
  orgId: string | null;
  /** false: no Manage Billing (an organization's admin reads the plan; only its owners change it). */
  manage?: boolean;
}) {
  const portal = useBillingPortal();
  const [error, setError] = useState<string | null>(null);

  function onManage(event: MouseEvent<HTMLAnchorElement>) {
    // Let modified clicks (new tab, new window) use the plain link.
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || event.button !== 0) return;
    event.preventDefault();
    if (portal.isPending) return;
    setError(null);
    portal.mutate(
      { returnPath, orgId },
      {
        onSuccess: (url) => window.location.assign(url),
        onError: (failure) => setError(failureMessage(failure, portalFailedMessage, { network: false })),
      },
    );
  }

  return (
    <Card as="section" aria-labelledby="current-plan-title" className="billing-plan-card">
      <h2 id="current-plan-title" className="qw-card__title">
        Current plan
      </h2>
      {loading ? (
        <p className="qw-muted">Loading…</p>
      ) : subscription ? (
        <div className="qw-stack qw-stack--sm">
          <p className="qw-cluster" data-testid="current-plan">
            <span className="billing-plan__name">{planDisplayName(subscription.plan)}</span>
            <StatusBadge status={subscription.status} />
          </p>
          {subscription.renews_at && (
            <p className="qw-muted qw-small">
              {subscription.cancel_at_period_end ? 'Ends on' : 'Renews on'} {formatDate(subscription.renews_at)}
            </p>
          )}
          {subscription.card && (
            <p className="qw-muted qw-small" data-testid="current-card">
              Paid with {subscription.card}
              {manage ? ' · change it in Manage Billing' : ''}
            </p>
          )}
        </div>
      ) : (
        <p className="qw-cluster" data-testid="current-plan">
          <span className="billing-plan__name">—</span>
          <span className="qw-visually-hidden">No plan</span>
        </p>
      )}
      {manage ? (
        <div className="qw-cluster">
          <a
            href={manageBillingLink(orgId)}
            className={buttonClassName({ variant: 'secondary' })}
            onClick={onManage}
            aria-busy={portal.isPending || undefined}
          >
            {portal.isPending && <Spinner />}
            Manage Billing
          </a>
          {error && (
            <p className="billing-error" role="alert">
              {error}
            </p>
          )}
        </div>
      ) : (
        <p className="qw-muted qw-small">Only an owner of the organization can change its plan or payment details.</p>
      )}
    </Card>
  );
}
