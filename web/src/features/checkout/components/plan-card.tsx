import { formatUsd, unlimitedDevicesText, type Plan } from '@qw/contracts';
import { Link } from 'react-router-dom';
import { Badge, Card } from '../../../ui';
import { CheckoutButton } from './checkout-button';
import './checkout.css';

function deviceCount(plan: Plan): string {
  return plan.devices === null ? unlimitedDevicesText : `${plan.devices} devices`;
}

/**
 * 'Sign in first' keeps the chosen plan through sign-in: the safe `next` path opens Billing with
 * the plan chosen, where a signed-in person buys it (the pricing page itself sends them home).
 */
export function signInFirstPath(plan: Plan): string {
  return `/login?next=${encodeURIComponent(`/app/personal/billing?plan=${plan.code}`)}`;
}

/** One plan from the catalog: badge, name, devices, price per month, features, 'Get {name}', 'Sign in first'. */
export function PlanCard({ plan }: { plan: Plan }) {
  const titleId = `plan-${plan.code}`;
  return (
    <Card
      as="article"
      tone={plan.badge ? 'highlight' : 'default'}
      className="co-plan"
      aria-labelledby={titleId}
      data-plan={plan.code}
    >
      <div className="co-plan__badge">{plan.badge && <Badge>{plan.badge}</Badge>}</div>
      <h3 id={titleId} className="co-plan__name">
        {plan.name}
      </h3>
      <p className="co-plan__devices">{deviceCount(plan)}</p>
      <p className="co-plan__price">
        <span className="co-plan__amount">{formatUsd(plan.priceCents)}</span>
        <span className="co-plan__interval">/month</span>
      </p>
      <ul className="co-plan__features">
        {plan.features.map((feature) => (
          <li key={feature}>{feature}</li>
        ))}
      </ul>
      <div className="co-plan__actions">
        <CheckoutButton plan={plan} />
        <Link to={signInFirstPath(plan)} className="co-plan__signin">
          Sign in first
        </Link>
      </div>
    </Card>
  );
}
