import { describe, expect, it } from 'vitest';
import { AppError } from '@qw/contracts';
import { DeviceTrafficCache, type DeviceTraffic } from '../src/devices/device-traffic.ts';

/**
 * Telemetry's traffic figures as device lists read them (issue #24): at most a second old, one
 * question for the devices without a fresh answer, shared by the requests that arrive meanwhile.
 */
const traffic = (n: number): DeviceTraffic => ({
  rx_bytes: n,
  tx_bytes: 2 * n,
  rx_bytes_24h: 3 * n,
  tx_bytes_24h: 4 * n,
});

function telemetry(figures: Map<string, DeviceTraffic>) {
  const asked: string[][] = [];
  let failing = false;
  return {
    asked,
    fail: (on: boolean) => {
      failing = on;
    },
    ask: async (ids: string[]) => {
      asked.push([...ids]);
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (failing) throw new AppError('timeout', 'telemetry.rpc.latest: no answer in time');
      return ids.flatMap((id) => {
        const found = figures.get(id);
        return found ? [{ device_id: id, ...found, endpoint: 'not kept' }] : [];
      });
    },
  };
}

describe('DeviceTrafficCache', () => {
  it('asks again once an answer is a second old, not before, and shows the new figures', async () => {
    let now = 5_000_000;
    const figures = new Map([
      ['a', traffic(1)],
      ['b', traffic(2)],
    ]);
    const source = telemetry(figures);
    const cache = new DeviceTrafficCache(source.ask, { now: () => now });
    expect(await cache.of(['a', 'b'])).toEqual(
      new Map([
        ['a', traffic(1)],
        ['b', traffic(2)],
      ]),
    );
    figures.set('a', traffic(10));
    now += 999;
    expect((await cache.of(['a', 'b'])).get('a')).toEqual(traffic(1));
    expect(source.asked).toEqual([['a', 'b']]);
    now += 1;
    expect((await cache.of(['a', 'b'])).get('a')).toEqual(traffic(10));
    expect(source.asked).toEqual([
      ['a', 'b'],
      ['a', 'b'],
    ]);
  });

  it('asks only for the devices without a fresh answer; one unknown to telemetry has none', async () => {
    let now = 0;
    const source = telemetry(
      new Map([
        ['a', traffic(1)],
        ['c', traffic(3)],
      ]),
    );
    const cache = new DeviceTrafficCache(source.ask, { now: () => now });
    await cache.of(['a']);
    now += 500;
    const answer = await cache.of(['a', 'b', 'c', 'b']);
    expect(answer).toEqual(
      new Map([
        ['a', traffic(1)],
        ['c', traffic(3)],
      ]),
    );
    expect(source.asked).toEqual([['a'], ['b', 'c']]);
    // b is remembered as unknown for the same second, like any answer.
    await cache.of(['b']);
    expect(source.asked).toHaveLength(2);
  });

  it('asks once for many requests at once', async () => {
    const source = telemetry(new Map([['a', traffic(1)]]));
    const cache = new DeviceTrafficCache(source.ask);
    const answers = await Promise.all(Array.from({ length: 20 }, () => cache.of(['a'])));
    expect(answers.every((answer) => answer.get('a')?.rx_bytes === 1)).toBe(true);
    expect(source.asked).toEqual([['a']]);
    expect(await cache.of([])).toEqual(new Map());
    expect(source.asked).toHaveLength(1);
  });

  it('fails the list when telemetry does not answer, and asks again on the next', async () => {
    const source = telemetry(new Map([['a', traffic(1)]]));
    const cache = new DeviceTrafficCache(source.ask);
    source.fail(true);
    await expect(cache.of(['a'])).rejects.toMatchObject({ code: 'timeout' });
    source.fail(false);
    expect((await cache.of(['a'])).get('a')).toEqual(traffic(1));
    expect(source.asked).toEqual([['a'], ['a']]);
  });

  it('keeps at most `size` devices, the oldest asked going first', async () => {
    const source = telemetry(new Map(['a', 'b', 'c'].map((id, n) => [id, traffic(n)])));
    const cache = new DeviceTrafficCache(source.ask, { size: 2 });
    await cache.of(['a']);
    await cache.of(['b', 'c']);
    expect(cache.size).toBe(2);
    await cache.of(['b', 'c']);
    expect(source.asked).toHaveLength(2);
    await cache.of(['a']);
    expect(source.asked).toEqual([['a'], ['b', 'c'], ['a']]);
  });
});
