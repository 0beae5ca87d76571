import { activePlanRpc, latestTelemetryRpc, mailAddressRpc, membershipRpc, type ActivePlan } from '@qw/contracts';
import { endpoint, refuseEveryCallerToken } from '@qw/platform';
import type { ServiceAlone } from '@qw/testkit';

/**
 * The services provisioning asks, as small doubles on the test bus under their own users: billing
 * answers each person's plan with `planOf`; identity knows of no memberships and no confirmed
 * address; telemetry has seen no device. For tests of provisioning alone (and its benchmark),
 * where nothing asks more of them.
 */
export async function serveProvisioningNeighbours(
  alone: ServiceAlone,
  planOf: (ask: { user_id?: string | undefined; org_id?: string | undefined }) => ActivePlan | null,
): Promise<void> {
  await alone.serve(
    'billing',
    [endpoint(activePlanRpc, async (data) => ({ plan: planOf(data) }))],
    refuseEveryCallerToken,
  );
  await alone.serve(
    'identity',
    [
      endpoint(membershipRpc, async () => ({ role: null, org_active: false, plan: null })),
      endpoint(mailAddressRpc, async () => ({ email: 'nobody@quietwire.test', verified: false })),
    ],
    refuseEveryCallerToken,
  );
  await alone.serve('telemetry', [endpoint(latestTelemetryRpc, async () => ({ devices: [] }))], refuseEveryCallerToken);
}
