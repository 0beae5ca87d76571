import { AppError, copiedMembershipRpc, type Caller, type OrganizationRole } from '@qw/contracts';
import type { RpcClient } from '@qw/platform';

/** How long an answer of identity's waits for provisioning, and how often it looks. */
export const provisioningWait = { totalMs: 3000, everyMs: 15 };

/**
 * Read-your-writes for identity's changes of a membership (issue #20): identity answers once its
 * transaction committed, and provisioning follows its event a moment later (a new role manages
 * the organization's devices or no longer does; a member who left loses their devices there). So
 * the answer waits until provisioning's copy gives the person `role` (null: gone), at most the
 * wait; past it, or when provisioning cannot say, the answer goes anyway (identity's change
 * stands, and provisioning follows).
 */
export async function untilProvisioningFollows(
  rpc: RpcClient,
  caller: Caller,
  membership: { orgId: string; userId: string; role: OrganizationRole | null },
  wait = provisioningWait,
): Promise<void> {
  const deadline = Date.now() + wait.totalMs;
  for (;;) {
    try {
      const copied = await rpc.request(
        copiedMembershipRpc,
        { org_id: membership.orgId, user_id: membership.userId },
        caller,
      );
      if (copied.role === membership.role) return;
    } catch (error) {
      // Provisioning cannot say (not running, or the caller is no one it knows there): identity's
      // change stands all the same, and provisioning follows it when it can.
      if (error instanceof AppError && ['not_found', 'unavailable', 'timeout'].includes(error.code)) return;
      throw error;
    }
    if (Date.now() >= deadline) return;
    await new Promise((resolve) => setTimeout(resolve, wait.everyMs));
  }
}
