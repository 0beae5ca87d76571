import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingEvents, identityEvents, projectionStatusRpc, rebuildProjectionRpc } from '@qw/contracts';
import { callerTokenSigner, RpcClient, type RunningService } from '@qw/platform';
import { eventually, type ServiceAlone, startServiceAlone, testCallerKeys } from '@qw/testkit';
import { analyticsService } from '../src/app.ts';

/**
 * Analytics reads its streams through the projections' durables, which a rebuild replaces with a
 * new generation's. /metrics reports the durables being read now: the live generation's, the
 * rebuilt one's beside them while it catches up, and no longer the retired one's.
 */
let alone: ServiceAlone;
let analytics: RunningService<never>;
let rpc: RpcClient;
const sign = callerTokenSigner(testCallerKeys.privateKey);
const operator = sign({ userId: randomUUID(), accountType: 'personal', isAdmin: true, emailVerified: true });

/** The generations whose durables /metrics reports pending figures for. */
async function reportedGenerations(): Promise<number[]> {
  const response = await analytics.http.inject({ method: 'GET', url: '/metrics' });
  const generations = [...response.body.matchAll(/^qw_consumer_pending\{consumer="[^"]*analytics_g(\d+)_/gm)].map(
    ([, generation]) => Number(generation),
  );
  return [...new Set(generations)].sort();
}

beforeAll(async () => {
  alone = await startServiceAlone('analytics-metrics', { billing: billingEvents, identity: identityEvents });
  analytics = (await alone.launch(analyticsService({ checkEveryMs: 200, retiredGraceMs: 500 }))) as never;
  rpc = new RpcClient(await alone.connect('gateway'));
}, 120_000);

afterAll(() => alone?.stop());

describe('analytics’ /metrics', () => {
  it('follows the projection’s durables from one generation to the next', async () => {
    await expect.poll(reportedGenerations, { timeout: 15_000 }).toEqual([1]);
    await rpc.request(rebuildProjectionRpc, {}, operator);
    await eventually(
      async () => (await rpc.request(projectionStatusRpc, {}, operator)).live?.generation === 2,
      30_000,
      100,
    );
    await expect.poll(reportedGenerations, { timeout: 15_000 }).toEqual([2]);
  });
});
