import {
  adminStatusRpc,
  listMyOrgsRpc,
  requireUserId,
  forgotPasswordRpc,
  getMeRpc,
  refreshRpc,
  resendVerificationRpc,
  resetPasswordRpc,
  setPasswordRpc,
  signInMfaRpc,
  signInRpc,
  signOutRpc,
  signUpRpc,
  updateProfileRpc,
  verifyEmailRpc,
} from '@qw/contracts';
import { endpoint, type RpcEndpoint } from '@qw/platform/bus';
import type { Kysely } from 'kysely';
import type { IdentityDatabase } from '../database.ts';
import type { AccountsService } from '../accounts/accounts.service.ts';
import type { EmailLinksService } from '../email-links/email-links.service.ts';
import type { ProfilesService } from '../profiles/profiles.service.ts';
import type { SessionsService } from '../sessions/sessions.service.ts';
import type { MfaService } from '../mfa/mfa.service.ts';
import { invitationProvesAddress } from '../organizations/invitations.service.ts';
import { listOrganizationsOf } from '../organizations/organizations.service.ts';

export type AccountsEndpointsDeps = {
  db: Kysely<IdentityDatabase>;
  accounts: AccountsService;
  sessions: SessionsService;
  emailLinks: EmailLinksService;
  profiles: ProfilesService;
  mfa: MfaService;
};

export function accountsEndpoints({
  db,
  accounts,
  sessions,
  emailLinks,
  profiles,
  mfa,
}: AccountsEndpointsDeps): RpcEndpoint[] {
  return [
    endpoint(signUpRpc, async ({ invitation_token, ...data }) =>
      accounts.signUp(data, { addressProven: await invitationProvesAddress(db, invitation_token, data.email) }),
    ),
    endpoint(signInRpc, async (data) => {
      const { userId } = await accounts.signIn(data);
      if (await mfa.isEnabled(userId))
        return { status: 'mfa_required' as const, mfa_token: await mfa.startChallenge(userId) };
      return { status: 'signed_in' as const, session: await sessions.issueSession(db, userId) };
    }),
    endpoint(signInMfaRpc, async (data) =>
      sessions.issueSession(db, await mfa.completeChallenge(data.mfa_token, data.code), { twoFactorPassed: true }),
    ),
    endpoint(refreshRpc, (data) => sessions.refresh(data.refresh_token)),
    endpoint(signOutRpc, async (data) => {
      await sessions.signOut(data.refresh_token);
      return {};
    }),
    endpoint(verifyEmailRpc, (data, caller) => emailLinks.verifyEmail(data.token, caller)),
    endpoint(setPasswordRpc, (data) => emailLinks.setPassword(data)),
    endpoint(resendVerificationRpc, (data, caller) => emailLinks.resendVerification(caller, data.address_key)),
    endpoint(forgotPasswordRpc, async (data) => {
      await emailLinks.forgotPassword(data);
      return {};
    }),
    endpoint(resetPasswordRpc, async (data) => {
      await emailLinks.resetPassword(data);
      return {};
    }),
    endpoint(getMeRpc, (_data, caller) => profiles.me(caller)),
    endpoint(adminStatusRpc, (_data, caller) => sessions.adminStatus(caller)),
    endpoint(updateProfileRpc, (data, caller) => profiles.updateProfile(caller, data)),
    endpoint(listMyOrgsRpc, async (_data, caller) => ({
      organizations: await listOrganizationsOf(db, requireUserId(caller)),
    })),
  ];
}
