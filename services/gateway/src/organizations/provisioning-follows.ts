import { AppError, copiedMembershipRpc, type Caller, type OrganizationRole } from '@qw/contracts';
import type { RpcClient } from '@qw/platform';
import { askUntil } from '../http/ask-until.ts';

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
): Promise<void> {
  await askUntil(async () => {
    try {
      const copied = await rpc.request(
        copiedMembershipRpc,
        { org_id: membership.orgId, user_id: membership.userId },
        caller,
      );
      return copied.role === membership.role;
    } catch (error) {
      // Provisioning cannot say (not running, or the caller is no one it knows there): identity's
      // change stands all the same, and provisioning follows it when it can.
      if (error instanceof AppError && ['not_found', 'unavailable', 'timeout'].includes(error.code)) return true;
      throw error;
    }
  });
}
