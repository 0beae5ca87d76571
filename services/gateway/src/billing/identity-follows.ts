import { AppError, getOrganizationRpc, type Caller, type OrganizationDetail } from '@qw/contracts';
import type { RpcClient } from '@qw/platform';

/** How long an answer of billing's waits for identity, and how often it looks. */
export const identityWait = { totalMs: 3000, everyMs: 15 };

/**
 * Read-your-writes for billing's changes of an organization (issue #20): billing answers once its
 * own transaction committed, and identity follows billing's events a moment later (it makes the
 * organization of a Business claim, counts it Active again when paid, takes a new plan's user
 * cap). Every other service asks identity about an organization, so the answer waits until
 * identity shows it to the caller as `expected` says. One that shows otherwise past the wait
 * (an operator holds it Suspended) ends the wait without an error; one identity never shows
 * answers 503 (the purchase is the buyer's: claiming again answers the same, once it is there).
 */
export async function untilIdentityShows(
  rpc: RpcClient,
  caller: Caller,
  orgId: string,
  expected: (organization: OrganizationDetail) => boolean,
  wait = identityWait,
): Promise<void> {
  const deadline = Date.now() + wait.totalMs;
  let shown = false;
  for (;;) {
    try {
      const organization = await rpc.request(getOrganizationRpc, { org_id: orgId }, caller);
      shown = true;
      if (expected(organization)) return;
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'not_found') throw error;
    }
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, wait.everyMs));
  }
  if (shown) return;
  throw new AppError(
    'unavailable',
    'Your purchase is added to your account, and its organization is still being set up. Try again in a moment.',
  );
}
