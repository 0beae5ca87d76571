import { describe, expect, it } from 'vitest';
import { CoalescedPasses } from '../src/passes.ts';

/** Lets settled promises' callbacks run (a few microtask turns). */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

/** A pass function whose passes end when the test says: each pass's number is its order (1, 2, …). */
function heldPasses() {
  const ends: Array<(outcome: { fails?: boolean }) => void> = [];
  let started = 0;
  const pass = () =>
    new Promise<number>((resolve, reject) => {
      const number = ++started;
      ends.push(({ fails }) => (fails ? reject(new Error(`pass ${number} failed`)) : resolve(number)));
    });
  return {
    pass,
    started: () => started,
    /** Ends the oldest pass still running, then lets the promises settle. */
    async end(outcome: { fails?: boolean } = {}) {
      ends.shift()!(outcome);
      await flush();
    },
  };
}

const settledState = async (promise: Promise<number>) => {
  let state: string = 'pending';
  promise.then(
    (value) => (state = `answered ${value}`),
    (error: Error) => (state = `failed: ${error.message}`),
  );
  await flush();
  return state;
};

describe('coalesced passes', () => {
  it('runs one pass at a time; wakes during a pass share the one pass after it', async () => {
    const held = heldPasses();
    const passes = new CoalescedPasses(held.pass);
    const first = passes.run();
    const [second, alsoSecond] = [passes.run(), passes.run()];
    expect(held.started()).toBe(1);
    await held.end();
    expect(await first).toBe(1);
    expect(held.started()).toBe(2);
    await held.end();
    expect(await second).toBe(2);
    expect(await alsoSecond).toBe(2);
    expect(held.started()).toBe(2);
  });

  it('answers a caller when its own pass ends, while later wakes keep asking for more', async () => {
    const held = heldPasses();
    const passes = new CoalescedPasses(held.pass);
    void passes.run();
    const mine = passes.run();
    await held.end();
    // Pass 2 (mine) runs; a wake during it asks for pass 3.
    const later = passes.run();
    await held.end();
    expect(await settledState(mine)).toBe('answered 2');
    expect(await settledState(later)).toBe('pending');
    expect(held.started()).toBe(3);
    await held.end();
    expect(await later).toBe(3);
  });

  it('still runs the pass asked for during one that failed, and the failure reaches only its callers', async () => {
    const held = heldPasses();
    const passes = new CoalescedPasses(held.pass);
    const failing = passes.run();
    const after = passes.run();
    await held.end({ fails: true });
    expect(await settledState(failing)).toBe('failed: pass 1 failed');
    expect(held.started()).toBe(2);
    await held.end();
    expect(await after).toBe(2);
  });

  it('once stopping, runs no pass asked for during the last one (its callers get 0); settled waits for the one under way', async () => {
    const held = heldPasses();
    let goOn = true;
    const passes = new CoalescedPasses(held.pass, () => goOn);
    void passes.run();
    const asked = passes.run();
    goOn = false;
    let settled = false;
    void passes.settled().then(() => (settled = true));
    await flush();
    expect(settled).toBe(false);
    await held.end();
    expect(await asked).toBe(0);
    expect(held.started()).toBe(1);
    await passes.settled();
    expect(settled).toBe(true);
  });
});
