import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import {
  AppError,
  organizationManagerActions,
  invitationDays,
  normalizeEmail,
  memberJoined,
  requireUserId,
  userVerified,
  type Caller,
  type Invitation,
  type OrganizationView,
} from '@qw/contracts';
import { addToOutbox } from '@qw/platform/bus';
import { takeRateLimited } from '@qw/platform/limits';
import type { Mailer } from '@qw/platform/mailer';
import type { IdentityDatabase, InvitationRow } from '../database.ts';
import { findUserByEmail, findUserById, setEmailVerified } from '../accounts/accounts.repository.ts';
import { validateEmail } from '../accounts/account-rules.ts';
import { hashSecretToken, newSecretToken } from '../accounts/secret-tokens.ts';
import { addAuditEntry } from '../audit/audit.repository.ts';
import { invitationMail } from '../mail/identity-mail.ts';
import {
  acceptRefusal,
  capRefusal,
  invitationLimit,
  invitationRefusal,
  invitationState,
  inviterRefusal,
  managerRefusal,
  organizationNotFound,
} from './organization-rules.ts';
import * as repo from './organizations.repository.ts';
import { listOrganizationsOf } from './organizations.service.ts';

type Db = Kysely<IdentityDatabase>;

export type InvitationsDeps = { db: Db; mailer: Mailer; logger: Logger; publicUrl: string };

const unknownLink = () =>
  new AppError('not_found', 'This invitation link is not valid. Check that you opened the whole link.');

/**
 * Invitations by e-mail: a single-use link whose token only the mail holds (the table keeps its
 * hash), valid for `invitationDays`. Inviting and accepting lock the organization's row, so the
 * user cap (members plus open invitations) holds however many sessions try at once.
 */
export class InvitationsService {
  constructor(private readonly deps: InvitationsDeps) {}

  private get db() {
    return this.deps.db;
  }

  async invite(
    caller: Caller,
    input: { org_id: string; email: string; role: 'admin' | 'member' },
  ): Promise<{ invitation: Invitation }> {
    const actorId = requireUserId(caller);
    const token = newSecretToken();
    const now = new Date();
    const outcome = await this.db.transaction().execute(async (tx) => {
      const org = await repo.lockOrganization(tx, input.org_id);
      const refusal = managerRefusal(
        org ? await repo.roleOf(tx, input.org_id, actorId) : null,
        organizationManagerActions.invite,
      );
      if (refusal || !org) throw refusal ?? organizationNotFound();
      const email = validateEmail(input.email);
      if (await repo.isMemberByEmail(tx, org.id, email))
        throw new AppError('already_exists', 'This person is already a member of the organization.', {
          field: 'email',
        });
      if (await repo.findOpenInvitationFor(tx, org.id, email, now))
        throw new AppError(
          'already_exists',
          'An invitation to this address is still open. Revoke it to send a new one.',
          {
            field: 'email',
          },
        );
      const { members } = await repo.countMembers(tx, org.id);
      const openInvitations = await repo.countOpenInvitations(tx, org.id, now);
      const full = capRefusal(org.plan, { members, openInvitations }, 'invite');
      if (full) throw full;
      await takeRateLimited(
        tx,
        [{ key: `invitations:org:${org.id}`, limit: invitationLimit(org.plan) }],
        (wait) => `Too many invitations were sent in the last hour. Try again in ${wait}.`,
      );
      const inviter = (await repo.personName(tx, actorId)) ?? 'Someone';
      const row = await repo.insertInvitation(tx, {
        id: randomUUID(),
        orgId: org.id,
        email,
        role: input.role,
        tokenHash: hashSecretToken(token),
        invitedBy: actorId,
        expiresAt: new Date(now.getTime() + invitationDays * 24 * 3600_000),
        createdAt: now,
      });
      await addAuditEntry(tx, {
        orgId: org.id,
        kind: 'member.invited',
        at: now,
        actor: { id: actorId, name: inviter },
        target: { kind: 'invitation', id: row.id, name: email },
        details: { role: input.role, expires_at: new Date(row.expires_at).toISOString() },
      });
      return { row, inviter, organization: org.name };
    });
    // The token exists in clear only now: the mail goes right after the commit (as the
    // verification mail does); if it fails, the inviter revokes and invites again.
    await this.sendMail(
      invitationMail(outcome.row.email, {
        organization: outcome.organization,
        inviter: outcome.inviter,
        role: input.role,
        link: this.link(token),
        days: invitationDays,
      }),
    );
    return { invitation: toInvitation(outcome.row, outcome.inviter) };
  }

  /** Invitations still open (not accepted, revoked or expired), newest first; owners and admins. */
  async list(caller: Caller, orgId: string): Promise<{ invitations: Invitation[] }> {
    const userId = requireUserId(caller);
    const refusal = managerRefusal(
      await repo.roleOf(this.db, orgId, userId),
      organizationManagerActions.seeInvitations,
    );
    if (refusal) throw refusal;
    const rows = await repo.listOpenInvitations(this.db, orgId, new Date());
    return {
      invitations: rows.map((row) => ({
        id: row.id,
        email: row.email,
        role: row.role,
        invited_by: row.full_name?.trim() || row.inviter_email || null,
        created_at: new Date(row.created_at).toISOString(),
        expires_at: new Date(row.expires_at).toISOString(),
      })),
    };
  }

  /** Owners and admins revoke an open invitation; its link stops working. Revoking twice is no error. */
  async revoke(caller: Caller, input: { org_id: string; invitation_id: string }): Promise<void> {
    const actorId = requireUserId(caller);
    const now = new Date();
    await this.db.transaction().execute(async (tx) => {
      const org = await repo.lockOrganization(tx, input.org_id);
      const refusal = managerRefusal(
        org ? await repo.roleOf(tx, input.org_id, actorId) : null,
        organizationManagerActions.revokeInvitations,
      );
      if (refusal) throw refusal;
      const invitation = await repo.findInvitationForUpdate(tx, input.invitation_id);
      if (!invitation || invitation.org_id !== input.org_id) throw new AppError('not_found', 'Invitation not found.');
      const state = invitationState(invitation, now);
      if (state === 'accepted')
        throw new AppError('conflict', 'This invitation has already been accepted. Remove the member instead.');
      if (state !== 'open') return;
      await repo.markInvitationRevoked(tx, invitation.id, now);
      await addAuditEntry(tx, {
        orgId: input.org_id,
        kind: 'invitation.revoked',
        at: now,
        actor: { id: actorId, name: (await repo.personName(tx, actorId)) ?? '' },
        target: { kind: 'invitation', id: invitation.id, name: invitation.email },
        details: { role: invitation.role },
      });
    });
  }

  /** What the link offers, for whoever holds it (the link went to that mailbox). */
  async preview(token: string) {
    const invitation = await repo.findInvitationByTokenHash(this.db, hashSecretToken(token));
    if (!invitation) throw unknownLink();
    const refusal = invitationRefusal(invitationState(invitation, new Date()));
    if (refusal) throw refusal;
    const org = await repo.findOrganization(this.db, invitation.org_id);
    if (!org) throw unknownLink();
    return {
      organization: org.name,
      email: invitation.email,
      role: invitation.role,
      expires_at: new Date(invitation.expires_at).toISOString(),
      account_exists: (await findUserByEmail(this.db, invitation.email)) !== undefined,
    };
  }

  /**
   * The signed-in person joins with the link mailed to their address, while its sender may still
   * invite people. The link proves the mailbox, so the address counts as verified from now on. Within the user cap: the invitation
   * was counted when it was made, so it fits exactly at the cap (not past it, after a smaller plan).
   */
  async accept(caller: Caller, token: string): Promise<{ organization: OrganizationView }> {
    const userId = requireUserId(caller);
    const now = new Date();
    const tokenHash = hashSecretToken(token);
    const orgId = await this.db.transaction().execute(async (tx) => {
      const found = await repo.findInvitationByTokenHash(tx, tokenHash);
      if (!found) throw unknownLink();
      // The organization first, then the invitation: the order every change of members takes.
      const org = await repo.lockOrganization(tx, found.org_id);
      const invitation = await repo.findInvitationForUpdate(tx, found.id);
      if (!org || !invitation) throw unknownLink();
      const refusal =
        invitationRefusal(invitationState(invitation, now)) ??
        inviterRefusal(invitation.invited_by ? await repo.roleOf(tx, org.id, invitation.invited_by) : null);
      if (refusal) throw refusal;
      const user = await findUserById(tx, userId);
      if (!user) throw new AppError('not_signed_in', 'Not signed in');
      const mismatch = acceptRefusal({ invitedEmail: invitation.email, accountEmail: user.email });
      if (mismatch) throw mismatch;
      const alreadyMember = (await repo.roleOf(tx, org.id, userId)) !== null;
      if (!alreadyMember) {
        const { members } = await repo.countMembers(tx, org.id);
        const openInvitations = await repo.countOpenInvitations(tx, org.id, now);
        const full = capRefusal(org.plan, { members, openInvitations }, 'accept');
        if (full) throw full;
      }
      await repo.markInvitationAccepted(tx, invitation.id, now);
      if (await setEmailVerified(tx, userId))
        await addToOutbox(tx, userVerified, { userId, verifiedAt: now.toISOString() });
      if (alreadyMember) return org.id;
      await repo.insertMember(tx, { orgId: org.id, userId, role: invitation.role });
      await addToOutbox(tx, memberJoined, {
        orgId: org.id,
        userId,
        role: invitation.role,
        actorId: userId,
        at: now.toISOString(),
      });
      const name = (await repo.personName(tx, userId)) ?? user.email;
      const inviter = await repo.personName(tx, invitation.invited_by);
      await addAuditEntry(tx, {
        orgId: org.id,
        kind: 'member.joined',
        at: now,
        actor: { id: userId, name },
        target: { kind: 'user', id: userId, name },
        personId: userId,
        details: {
          role: invitation.role,
          invitation_id: invitation.id,
          ...(invitation.invited_by && inviter
            ? { invited_by: { user_id: invitation.invited_by, name: inviter } }
            : {}),
        },
      });
      return org.id;
    });
    const [organization] = await listOrganizationsOf(this.db, userId, orgId);
    if (!organization) throw organizationNotFound();
    return { organization };
  }

  private link(token: string): string {
    const url = new URL('/invite', this.deps.publicUrl);
    url.searchParams.set('token', token);
    return url.toString();
  }

  private async sendMail(message: Parameters<Mailer['send']>[0]): Promise<void> {
    try {
      await this.deps.mailer.send(message);
    } catch (error) {
      this.deps.logger.error({ err: error, mail: 'invitation' }, 'mail could not be sent');
    }
  }
}

/**
 * Someone lost the right to invite people to the organization (demoted to member, removed, or
 * left): the invitations they sent that are still open are revoked with them, in the same
 * transaction, each with its entry in the log. `actor` is who made the change.
 */
export async function revokeInvitationsOfFormerManager(
  tx: Db,
  change: { orgId: string; inviterId: string; actor: { id: string; name: string }; at: Date },
): Promise<void> {
  const revoked = await repo.revokeOpenInvitationsBy(tx, change.orgId, change.inviterId, change.at);
  for (const invitation of revoked)
    await addAuditEntry(tx, {
      orgId: change.orgId,
      kind: 'invitation.revoked',
      at: change.at,
      actor: change.actor,
      target: { kind: 'invitation', id: invitation.id, name: invitation.email },
      details: { role: invitation.role, reason: 'inviter_lost_rights' },
    });
}

function toInvitation(row: InvitationRow, inviter: string | null): Invitation {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    invited_by: inviter,
    created_at: new Date(row.created_at).toISOString(),
    expires_at: new Date(row.expires_at).toISOString(),
  };
}

/**
 * Whether `token` is the link of an open invitation mailed to `email`: then whoever holds it reads
 * that mailbox, and a sign-up with it needs no verification mail (the invitation page signs people
 * up this way). Anything else proves nothing, and the sign-up goes on as any other.
 */
export async function invitationProvesAddress(
  db: Kysely<IdentityDatabase>,
  token: string | undefined,
  email: string,
): Promise<boolean> {
  if (!token) return false;
  const invitation = await repo.findInvitationByTokenHash(db, hashSecretToken(token));
  if (!invitation || invitationState(invitation, new Date()) !== 'open') return false;
  return normalizeEmail(invitation.email) === normalizeEmail(email);
}
