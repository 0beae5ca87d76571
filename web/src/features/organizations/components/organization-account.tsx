import { findPlan, planDisplayName } from '@qw/contracts';
import { formatDate } from '../../../lib/format';
import { Alert, ButtonLink, StatTile } from '../../../ui';
import type { Organization } from '../api/get-organizations';
import { useSelectedOrg } from './org-selection';
import './organizations.css';

export const noOrganizationText = 'No organization found.';

/** "3 / 10" with the plan's user cap (spec §9), or just the count when the plan has none. */
export function usersText(org: Pick<Organization, 'member_count' | 'plan'>): string {
  const cap = findPlan(org.plan)?.userCap ?? null;
  return cap === null ? String(org.member_count) : `${org.member_count} / ${cap}`;
}

/**
 * Spec §2 business Account: cards Organization name, Plan, Users (with the cap) and Created date;
 * buttons Manage Users, Manage Devices, Billing and Support; 'No organization found.' when empty.
 */
export function OrganizationAccount() {
  const { selected, loading, failed } = useSelectedOrg();
  if (loading) return <p className="qw-muted">Loading…</p>;
  if (failed) return <Alert tone="error">We couldn’t load your organization. Please reload the page.</Alert>;
  if (!selected) return <p data-testid="no-organization">{noOrganizationText}</p>;

  return (
    <section className="qw-stack" aria-labelledby="org-account-title">
      <h2 id="org-account-title" className="qw-visually-hidden">
        Organization
      </h2>
      <div className="org-cards">
        <StatTile label="Organization name" value={selected.name} hint={selected.is_active ? 'Active' : 'Suspended'} />
        <StatTile label="Plan" value={planDisplayName(selected.plan)} />
        <StatTile label="Users" value={usersText(selected)} />
        <StatTile label="Created" value={formatDate(selected.created_at)} />
      </div>
      <div className="org-actions">
        <ButtonLink to="/app/business/users" variant="secondary">
          Manage Users
        </ButtonLink>
        <ButtonLink to="/app/business/devices" variant="secondary">
          Manage Devices
        </ButtonLink>
        <ButtonLink to="/app/business/billing" variant="secondary">
          Billing
        </ButtonLink>
        <ButtonLink to="/support" variant="secondary">
          Support
        </ButtonLink>
      </div>
    </section>
  );
}
