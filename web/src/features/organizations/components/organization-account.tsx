import {
  isOrganizationRole,
  managesOrganization,
  normalizeOrganizationName,
  organizationNameMaxLength,
  organizationNameProblem,
  planDisplayName,
  userCapOf,
} from '@qw/contracts';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { failureMessage } from '../../../lib/api-client';
import { formatDate } from '../../../lib/format';
import { Alert, Badge, Button, ButtonLink, Card, Field, Input, StatTile, useToast } from '../../../ui';
import { useOrganization } from '../api/get-organization';
import type { Organization } from '../api/get-organizations';
import { useRenameOrganization } from '../api/rename-organization';
import { useSelectedOrg } from './org-selection';
import './organizations.css';

export const noOrganizationText = 'No organization found.';

/** Owners and admins manage the organization (spec §6); the role comes with the organization list. */
export function managesOrg(org: Pick<Organization, 'role'> | null | undefined): boolean {
  return !!org && isOrganizationRole(org.role) && managesOrganization(org.role);
}

/** "3 / 10" with the plan's user cap (spec §9), or just the count when the plan has none. */
export function usersText(org: { member_count: number; plan: string; user_cap?: number | null }): string {
  const cap = org.user_cap === undefined ? userCapOf(org.plan) : org.user_cap;
  return cap === null ? String(org.member_count) : `${org.member_count} / ${cap}`;
}

/**
 * Spec §2 business Account: cards Organization name, Plan, Users (with the cap) and Created date;
 * buttons Manage Users, Manage Devices, Billing and Support ('No organization found.' when empty),
 * Manage Users and Billing for owners and admins only, who can also rename the organization.
 */
export function OrganizationAccount() {
  const { selected, loading, failed } = useSelectedOrg();
  const detail = useOrganization(selected?.id ?? null);
  if (loading) return <p className="qw-muted">Loading…</p>;
  if (failed) return <Alert tone="error">We couldn’t load your organization. Please reload the page.</Alert>;
  if (!selected) return <p data-testid="no-organization">{noOrganizationText}</p>;
  // The detail adds the cap and the status; the list entry is enough until it answers.
  const org = detail.data?.id === selected.id ? detail.data : selected;
  const active = detail.data?.id === selected.id ? detail.data.status === 'Active' : selected.is_active;

  return (
    <section className="qw-stack" aria-labelledby="org-account-title">
      <h2 id="org-account-title" className="qw-visually-hidden">
        Organization
      </h2>
      {!active && org.suspension_reason && (
        <Alert tone="warning" title="Quietwire suspended this organization">
          {org.suspension_reason} Its devices do not connect until Quietwire lifts the suspension;{' '}
          <Link to="/support">contact support</Link> about it.
        </Alert>
      )}
      <div className="org-cards">
        <StatTile
          label="Organization name"
          value={org.name}
          hint={<Badge tone={active ? 'success' : 'warning'}>{active ? 'Active' : 'Suspended'}</Badge>}
        />
        <StatTile label="Plan" value={planDisplayName(org.plan)} />
        <StatTile label="Users" value={usersText(org)} />
        <StatTile label="Created" value={formatDate(org.created_at)} />
      </div>
      <div className="org-actions">
        {managesOrg(selected) && (
          <ButtonLink to="/app/business/users" variant="secondary">
            Manage Users
          </ButtonLink>
        )}
        <ButtonLink to="/app/business/devices" variant="secondary">
          Manage Devices
        </ButtonLink>
        {managesOrg(selected) && (
          <ButtonLink to="/app/business/billing" variant="secondary">
            Billing
          </ButtonLink>
        )}
        <ButtonLink to="/support" variant="secondary">
          Support
        </ButtonLink>
      </div>
      {managesOrg(selected) && (
        <RenameOrganization key={`${selected.id}-${org.name}`} orgId={selected.id} name={org.name} />
      )}
    </section>
  );
}

/** Owners and admins rename the organization; the server's refusal is shown as it says it. */
function RenameOrganization({ orgId, name }: { orgId: string; name: string }) {
  const [value, setValue] = useState(name);
  const [error, setError] = useState<string | null>(null);
  const rename = useRenameOrganization();
  const toast = useToast();
  // The contracts' name rule (1-100 characters, trimmed, inner spaces as one), the one identity applies.
  const normalized = normalizeOrganizationName(value);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (normalized === name || rename.isPending) return;
    const problem = organizationNameProblem(normalized);
    if (problem) {
      setError(problem);
      return;
    }
    setError(null);
    rename.mutate(
      { orgId, name: normalized },
      {
        onSuccess: () => toast('Saved'),
        onError: (failure) =>
          setError(failureMessage(failure, 'We couldn’t rename the organization. Please try again.')),
      },
    );
  }

  return (
    <Card as="section" aria-labelledby="org-rename-title">
      <h2 id="org-rename-title" className="qw-card__title">
        Rename the organization
      </h2>
      <form className="org-rename" onSubmit={onSubmit} noValidate>
        <Field id="org-name" label="Organization name" error={error ?? undefined}>
          <Input
            name="name"
            maxLength={organizationNameMaxLength}
            value={value}
            onChange={(event) => setValue(event.target.value)}
          />
        </Field>
        <Button
          type="submit"
          variant="secondary"
          busy={rename.isPending}
          busyText="Saving…"
          disabled={!normalized || normalized === name}
        >
          Save
        </Button>
      </form>
    </Card>
  );
}
