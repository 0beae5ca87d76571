import { AppError, getOrganizationRpc, type Caller, type OrganizationDetail } from '@qw/contracts';
import type { RpcClient } from '@qw/platform';
import { askUntil } from '../http/ask-until.ts';

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
): Promise<void> {
  let shown = false;
  await askUntil(async () => {
    try {
      const organization = await rpc.request(getOrganizationRpc, { org_id: orgId }, caller);
      shown = true;
      return expected(organization);
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') return false;
      throw error;
    }
  });
  if (shown) return;
  throw new AppError(
    'unavailable',
    'Your purchase is added to your account, and its organization is still being set up. Try again in a moment.',
  );
}
