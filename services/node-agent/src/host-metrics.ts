import { statfs } from 'node:fs/promises';
import os from 'node:os';
import type { WgHost } from './wg-host.ts';

function cpuTimes() {
  let idle = 0;
  let total = 0;
  for (const cpu of os.cpus()) {
    const t = cpu.times;
    idle += t.idle;
    total += t.user + t.nice + t.sys + t.idle + t.irq;
  }
  return { idle, total };
}

/** CPU use since the previous reading, memory, the root disk and the load averages. */
export function hostMetricsReader() {
  let previous = cpuTimes();
  return async () => {
    const now = cpuTimes();
    const totalDelta = now.total - previous.total;
    const cpu = totalDelta > 0 ? Math.max(0, Math.min(100, (1 - (now.idle - previous.idle) / totalDelta) * 100)) : 0;
    previous = now;
    const disk = await statfs('/');
    const [load1, load5, load15] = os.loadavg();
    return {
      cpu,
      memTotal: os.totalmem(),
      memUsed: os.totalmem() - os.freemem(),
      diskTotal: disk.blocks * disk.bsize,
      diskUsed: (disk.blocks - disk.bfree) * disk.bsize,
      load1: load1 ?? 0,
      load5: load5 ?? 0,
      load15: load15 ?? 0,
    };
  };
}

/**
 * What the server's 24 h history shows beside the host's own figures: the WireGuard interface's
 * byte counters and its peers at the latest sample. Left out when `ip` cannot tell (the sample
 * still goes).
 */
export async function interfaceReading(
  host: Pick<WgHost, 'byteCounters'>,
  peers: number | undefined,
): Promise<{ netRxBytes?: number; netTxBytes?: number; peers?: number }> {
  const counters = await host.byteCounters().catch(() => null);
  return {
    ...(counters ? { netRxBytes: counters.rx, netTxBytes: counters.tx } : {}),
    ...(peers === undefined ? {} : { peers }),
  };
}
