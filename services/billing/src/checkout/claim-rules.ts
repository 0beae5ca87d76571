/** Who is claiming, as identity knows them (not as the request says). */
export type Claimer = { email: string; emailVerified: boolean; createdAt: Date };

/**
 * Against account pre-hijacking: anyone can sign up with someone else's address before that
 * person buys. So a purchase goes to an account only if the account proved it owns the address
 * (confirmed e-mail), or was made after the payment, in the buyer's own post-checkout flow.
 */
export function claimNeedsVerifiedEmail(claimer: Claimer, paidAt: Date | null): boolean {
  if (claimer.emailVerified) return false;
  return !paidAt || claimer.createdAt <= paidAt;
}
