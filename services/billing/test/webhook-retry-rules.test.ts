import { describe, expect, it } from 'vitest';
import { webhookRetryDelaySeconds } from '../src/webhooks/webhook-retry-rules.ts';

describe('webhookRetryDelaySeconds', () => {
  it('waits 1 s after the first failure and doubles after each one', () => {
    expect([1, 2, 3, 4, 5].map(webhookRetryDelaySeconds)).toEqual([1, 2, 4, 8, 16]);
  });

  it('never waits more than an hour, however many attempts failed', () => {
    expect(webhookRetryDelaySeconds(12)).toBe(2048);
    expect(webhookRetryDelaySeconds(13)).toBe(3600);
    expect(webhookRetryDelaySeconds(1000)).toBe(3600);
  });

  it('reads a count below one as the first failure', () => {
    expect(webhookRetryDelaySeconds(0)).toBe(1);
    expect(webhookRetryDelaySeconds(-3)).toBe(1);
  });
});
