import { invitationDays, isEmailAddress, isOrganizationRole, normalizeEmail } from '@qw/contracts';
import { useState, type FormEvent } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { useAuth } from '../../../lib/auth/auth-provider';
import { formatDate } from '../../../lib/format';
import {
  Alert,
  Badge,
  Button,
  Card,
  Field,
  Input,
  Modal,
  Select,
  Table,
  useToast,
  type TableColumn,
} from '../../../ui';
import { useChangeMemberRole } from '../api/change-member-role';
import { useOrganization } from '../api/get-organization';
import type { Organization } from '../api/get-organizations';
import { useInvitations, type PendingInvitation } from '../api/get-invitations';
import { useOrgUsers, userLabel, type OrgUser } from '../api/get-org-users';
import { useInviteMember } from '../api/invite-member';
import { useRemoveMember } from '../api/remove-member';
import { useRevokeInvitation } from '../api/revoke-invitation';
import { invitableRoles, memberControls, roleLabel } from '../utils/organization-rules';
import { LeaveOrganization } from './leave-organization';
import { managesOrg, usersText } from './organization-account';
import './organizations.css';

const roleOptions = (['owner', 'admin', 'member'] as const).map((role) => ({ value: role, label: roleLabel(role) }));

/**
 * /app/business/users: owners and admins see the organization's users with their roles (spec §7
 * list_org_users), invite by email, revoke pending invitations, change roles and remove members;
 * members see a note. Everyone can leave (the last owner is refused by the server).
 */
export function OrgUsers({ org }: { org: Organization }) {
  if (!managesOrg(org)) {
    return (
      <>
        <Alert tone="info">
          Only owners and admins of {org.name} can see and manage its users. Ask one of them to invite someone or to
          change your role.
        </Alert>
        <LeaveOrganization org={org} />
      </>
    );
  }
  return (
    <>
      <UsersList org={org} />
      <InviteForm org={org} />
      <PendingInvitations org={org} />
      <LeaveOrganization org={org} />
    </>
  );
}

function UsersList({ org }: { org: Organization }) {
  const { user } = useAuth();
  const users = useOrgUsers(org.id);
  const detail = useOrganization(org.id);
  const changeRole = useChangeMemberRole();
  const remove = useRemoveMember();
  const toast = useToast();
  const [error, setError] = useState<string | null>(null);
  const [removing, setRemoving] = useState<OrgUser | null>(null);
  const owners = users.data?.filter((u) => u.role === 'owner').length ?? 0;
  const viewerRole = isOrganizationRole(org.role) ? org.role : null;
  const controlsFor = (u: OrgUser) =>
    memberControls({ viewerRole, target: { role: u.role, self: u.user_id === user?.id }, owners });

  const columns: TableColumn<OrgUser>[] = [
    {
      key: 'name',
      header: 'Name',
      rowHeader: true,
      cell: (u) => (
        <>
          {userLabel(u)}
          {u.user_id === user?.id && <span className="qw-muted"> (you)</span>}
        </>
      ),
      sortValue: (u) => userLabel(u),
    },
    { key: 'email', header: 'Email', cell: (u) => u.email, sortValue: (u) => u.email },
    {
      key: 'role',
      header: 'Role',
      cell: (u) => {
        const { roles, note } = controlsFor(u);
        if (roles.length <= 1)
          return (
            <span className="org-role-fixed">
              <span>{roleLabel(u.role)}</span>
              {note && <span className="qw-muted qw-small">{note}</span>}
            </span>
          );
        return (
          <Field id={`role-${u.user_id}`} label={<span className="qw-visually-hidden">Role of {userLabel(u)}</span>}>
            <Select
              value={u.role}
              disabled={changeRole.isPending}
              onChange={(event) => {
                const role = event.target.value as OrgUser['role'];
                setError(null);
                changeRole.mutate(
                  { orgId: org.id, userId: u.user_id, role },
                  {
                    onSuccess: () => toast(`${userLabel(u)} is now ${roleLabel(role).toLowerCase()}.`),
                    onError: (failure) => setError(failureMessage(failure, 'We couldn’t change the role.')),
                  },
                );
              }}
              options={roleOptions.filter((option) => roles.includes(option.value))}
            />
          </Field>
        );
      },
      sortValue: (u) => u.role,
    },
    {
      key: 'actions',
      header: 'Actions',
      cell: (u) =>
        u.user_id === user?.id ? (
          <span className="qw-muted qw-small">Leave below</span>
        ) : controlsFor(u).remove ? (
          <Button size="small" variant="danger" onClick={() => setRemoving(u)}>
            Remove
          </Button>
        ) : null,
    },
  ];

  return (
    <section className="qw-stack" aria-labelledby="org-users-title">
      <div className="org-section-head">
        <h2 id="org-users-title">People in {org.name}</h2>
        <p className="qw-muted qw-small" data-testid="org-user-count">
          Users: {usersText({ ...org, user_cap: detail.data?.user_cap })}
        </p>
      </div>
      {error && <Alert tone="error">{error}</Alert>}
      {users.isError && (
        <Alert tone="error">{failureMessage(users.error, 'We couldn’t load the users. Please reload the page.')}</Alert>
      )}
      <Table
        caption={`Users of ${org.name}`}
        captionHidden
        columns={columns}
        rows={users.data}
        rowKey={(u) => u.user_id}
        loading={users.isPending}
        emptyText="No users yet."
        className="org-users-table"
      />
      <Modal
        open={removing !== null}
        title={`Remove ${removing ? userLabel(removing) : 'this person'}?`}
        confirmLabel="Remove"
        confirmVariant="danger"
        busy={remove.isPending}
        busyText="Removing…"
        onCancel={() => setRemoving(null)}
        onConfirm={() =>
          removing &&
          remove.mutate(
            { orgId: org.id, userId: removing.user_id },
            {
              onSuccess: () => {
                toast(`${userLabel(removing)} was removed.`);
                setRemoving(null);
              },
              onError: (failure) => {
                setRemoving(null);
                setError(failureMessage(failure, 'We couldn’t remove this person.'));
              },
            },
          )
        }
      >
        <p>
          They leave {org.name} at once, and their organization devices are removed: those configurations stop working.
        </p>
      </Modal>
    </section>
  );
}

function InviteForm({ org }: { org: Organization }) {
  const invite = useInviteMember();
  const toast = useToast();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<(typeof invitableRoles)[number]>('member');
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (invite.isPending) return;
    const address = normalizeEmail(email);
    if (!isEmailAddress(address)) {
      setProblem('Please enter an email address.');
      return;
    }
    setProblem(null);
    setError(null);
    invite.mutate(
      { orgId: org.id, email: address, role },
      {
        onSuccess: () => {
          setEmail('');
          toast(`Invitation sent to ${address}.`);
        },
        onError: (failure) => setError(failureMessage(failure, 'We couldn’t send the invitation. Please try again.')),
      },
    );
  }

  return (
    <Card as="section" aria-labelledby="org-invite-title">
      <h2 id="org-invite-title" className="qw-card__title">
        Invite someone
      </h2>
      <p className="qw-muted qw-small">
        We email them a link to join {org.name}. It works once, for that address, and expires after {invitationDays}{' '}
        days.
      </p>
      <form className="org-invite" onSubmit={onSubmit} noValidate aria-label="Invite someone">
        <Field id="invite-email" label="Email" error={problem ?? undefined}>
          <Input
            type="email"
            name="email"
            autoComplete="off"
            maxLength={254}
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </Field>
        <Field id="invite-role" label="Role">
          <Select
            name="role"
            value={role}
            onChange={(event) => setRole(event.target.value as (typeof invitableRoles)[number])}
            options={invitableRoles.map((r) => ({ value: r, label: roleLabel(r) }))}
          />
        </Field>
        <Button type="submit" busy={invite.isPending} busyText="Sending…" disabled={!email.trim()}>
          Invite
        </Button>
      </form>
      {error && (
        <p className="org-error" role="alert">
          {error}
        </p>
      )}
    </Card>
  );
}

function PendingInvitations({ org }: { org: Organization }) {
  const invitations = useInvitations(org.id);
  const revoke = useRevokeInvitation();
  const toast = useToast();
  const [revoking, setRevoking] = useState<PendingInvitation | null>(null);
  const [error, setError] = useState<string | null>(null);

  const columns: TableColumn<PendingInvitation>[] = [
    { key: 'email', header: 'Email', rowHeader: true, cell: (i) => i.email, sortValue: (i) => i.email },
    { key: 'role', header: 'Role', cell: (i) => <Badge tone="neutral">{roleLabel(i.role)}</Badge> },
    { key: 'sent', header: 'Sent', cell: (i) => formatDate(i.created_at), sortValue: (i) => i.created_at },
    { key: 'expires', header: 'Expires', cell: (i) => formatDate(i.expires_at), sortValue: (i) => i.expires_at },
    {
      key: 'actions',
      header: 'Actions',
      cell: (i) => (
        <Button size="small" variant="danger" onClick={() => setRevoking(i)}>
          Revoke
        </Button>
      ),
    },
  ];

  return (
    <section className="qw-stack" aria-labelledby="org-invitations-title">
      <h2 id="org-invitations-title">Pending invitations</h2>
      {error && <Alert tone="error">{error}</Alert>}
      {invitations.isError && (
        <Alert tone="error">
          {failureMessage(invitations.error, 'We couldn’t load the invitations. Please reload the page.')}
        </Alert>
      )}
      <Table
        caption={`Pending invitations to ${org.name}`}
        captionHidden
        columns={columns}
        rows={invitations.data}
        rowKey={(i) => i.id}
        loading={invitations.isPending}
        emptyText="No pending invitations."
      />
      <Modal
        open={revoking !== null}
        title={`Revoke the invitation to ${revoking?.email ?? 'this address'}?`}
        confirmLabel="Revoke"
        confirmVariant="danger"
        busy={revoke.isPending}
        busyText="Revoking…"
        onCancel={() => setRevoking(null)}
        onConfirm={() =>
          revoking &&
          revoke.mutate(
            { orgId: org.id, invitationId: revoking.id },
            {
              onSuccess: () => {
                toast(`The invitation to ${revoking.email} was revoked.`);
                setRevoking(null);
              },
              onError: (failure) => {
                setRevoking(null);
                setError(failureMessage(failure, 'We couldn’t revoke the invitation.'));
              },
            },
          )
        }
      >
        <p>Its link stops working at once. You can invite the address again later.</p>
      </Modal>
    </section>
  );
}
