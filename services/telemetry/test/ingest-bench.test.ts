import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBench } from '../../../bench/lib/runner.ts';
import {
  type ActualIngest,
  checkIngest,
  expectedIngest,
  fleetSizes,
  simulatedFleet,
  telemetryBench,
} from '../../../bench/telemetry.bench.ts';

/**
 * The telemetry ingest benchmark (bench/telemetry.bench.ts) at its tiny size, and the check it
 * ends with: a wrong figure in telemetry's tables must be reported, or the bench proves nothing.
 */

/** What telemetry's tables would hold if every figure were right, in pg's shapes. */
function rightTables(expected: ReturnType<typeof expectedIngest>): ActualIngest {
  return {
    latest: [...expected.latest].map(([deviceId, row]) => ({
      device_id: deviceId,
      ts: new Date(row.ts),
      rx_bytes: String(row.rx),
      tx_bytes: String(row.tx),
      latest_handshake: row.handshake === null ? null : new Date(row.handshake),
      endpoint: row.endpoint,
      latency_ms: row.latency,
    })),
    deviceHours: [...expected.deviceHours].flatMap(([deviceId, byHour]) =>
      [...byHour].map(([hour, bytes]) => ({
        device_id: deviceId,
        hour: new Date(hour),
        rx_bytes: String(bytes.rx),
        tx_bytes: String(bytes.tx),
      })),
    ),
    hours: [...expected.hours].map(([hour, bytes]) => ({
      ts: new Date(hour),
      rx_bytes: String(bytes.rx),
      tx_bytes: String(bytes.tx),
    })),
  };
}

describe('telemetry ingest benchmark', () => {
  it('its check passes right tables and reports a wrong hourly total, a wrong counter and a missing hour', () => {
    // Periods straddle an hour's end, so there are two hours to get right.
    const hourEnd = Date.UTC(2027, 0, 5, 11);
    const fleet = simulatedFleet({ ...fleetSizes.tiny, nodes: 2, peersPerNode: 5 }, hourEnd - 25_000);
    const expected = expectedIngest(fleet);
    expect(expected.hours.size).toBe(2);
    expect(checkIngest(expected, rightTables(expected))).toEqual([]);

    const wrongTotal = rightTables(expected);
    wrongTotal.hours[0]!.rx_bytes = String(Number(wrongTotal.hours[0]!.rx_bytes) + 1);
    expect(checkIngest(expected, wrongTotal)).toEqual([expect.stringMatching(/^hourly total at .*expected/)]);

    const wrongCounter = rightTables(expected);
    wrongCounter.latest[3]!.tx_bytes = '0';
    expect(checkIngest(expected, wrongCounter)).toEqual([expect.stringMatching(/^latest tx of device/)]);

    const missingHour = rightTables(expected);
    missingHour.deviceHours.pop();
    expect(checkIngest(expected, missingHour)).toEqual([expect.stringMatching(/has no bytes at/)]);
  });

  it('runs at its tiny size through a real telemetry replica, a restart included, and writes its result', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'qw-bench-telemetry-'));
    try {
      // The bench fails when telemetry's tables disagree with the samples afterwards.
      const result = await runBench(telemetryBench, 'tiny', { dir, log: (line) => console.error(line) });
      expect(result.reason).toBeUndefined();
      expect(result.status).toBe('ok');
      expect(JSON.parse(await readFile(join(dir, 'telemetry.json'), 'utf8'))).toEqual(result);
      expect(result.figures).toHaveLength(1);
      const [figure] = result.figures;
      expect(figure).toMatchObject({ unit: 'samples/s', target: { on: 'value', comparison: '>=', limit: 50_000 } });
      expect(figure!.value).toBeGreaterThan(0);
      expect(figure!.baseline!.value).toBeGreaterThan(0);
      expect(typeof figure!.met).toBe('boolean');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
