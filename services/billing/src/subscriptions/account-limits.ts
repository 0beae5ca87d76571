import type { RateLimit } from '@qw/platform/limits';

/**
 * What a signed-in account may ask of the payment provider in a short time: each of these calls
 * Stripe (a portal session, a price change or schedule, a resume), so a script or a stuck button
 * cannot make hundreds. Counted per account (the person asking, for their own plan or an
 * organization's) and per action, only once the request is allowed and would reach the provider.
 */
export type AccountAction = 'manage' | 'change-plan' | 'resume';

export const accountActionLimit: RateLimit = { max: 10, windowSeconds: 600 };

const refusals: Record<AccountAction, (wait: string) => string> = {
  manage: (wait) => `The billing portal was opened too many times in a short time. Please try again in ${wait}.`,
  'change-plan': (wait) => `Too many plan changes were asked for in a short time. Please try again in ${wait}.`,
  resume: (wait) => `Too many resumes were asked for in a short time. Please try again in ${wait}.`,
};

export function accountActionCheck(action: AccountAction, userId: string) {
  return {
    checks: [{ key: `billing:${action}:${userId}`, limit: accountActionLimit }],
    message: refusals[action],
  };
}
