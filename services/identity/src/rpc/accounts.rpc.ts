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
import type { MfaService } from '../mfa/mfa.service.ts';
import { listOrganizationsOf } from '../organizations/organizations.service.ts';

export function accountsEndpoints(
  accounts: AccountsService,
  mfa: MfaService,
  db: Kysely<IdentityDatabase>,
): RpcEndpoint[] {
  return [
    endpoint(signUpRpc, (data) => accounts.signUp(data)),
    endpoint(signInRpc, async (data) => {
      const { userId } = await accounts.signIn(data);
      if (await mfa.isEnabled(userId))
        return { status: 'mfa_required' as const, mfa_token: await mfa.startChallenge(userId) };
      return { status: 'signed_in' as const, session: await accounts.issueSession(db, userId) };
    }),
    endpoint(signInMfaRpc, async (data) =>
      accounts.issueSession(db, await mfa.completeChallenge(data.mfa_token, data.code), { twoFactorPassed: true }),
    ),
    endpoint(refreshRpc, (data) => accounts.refresh(data.refresh_token)),
    endpoint(signOutRpc, async (data) => {
      await accounts.signOut(data.refresh_token);
      return {};
    }),
    endpoint(verifyEmailRpc, (data) => accounts.verifyEmail(data.token)),
    endpoint(setPasswordRpc, (data) => accounts.setPassword(data)),
    endpoint(resendVerificationRpc, (data, caller) => accounts.resendVerification(caller, data.address_key)),
    endpoint(forgotPasswordRpc, async (data) => {
      await accounts.forgotPassword(data);
      return {};
    }),
    endpoint(resetPasswordRpc, async (data) => {
      await accounts.resetPassword(data);
      return {};
    }),
    endpoint(getMeRpc, (_data, caller) => accounts.me(caller, (userId) => mfa.isEnabled(userId))),
    endpoint(adminStatusRpc, (_data, caller) => accounts.adminStatus(caller)),
    endpoint(updateProfileRpc, (data, caller) => accounts.updateProfile(caller, data)),
    endpoint(listMyOrgsRpc, async (_data, caller) => ({
      organizations: await listOrganizationsOf(db, requireUserId(caller)),
    })),
  ];
}
