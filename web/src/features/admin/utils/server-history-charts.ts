import type { EChartsOption } from 'echarts';
import type { ServerHistory, ServerHistoryBucket } from '../api/get-server-history';
import { byteScale } from '../format';

/**
 * The four small charts of a server's last 24 hours (issue #26), and the sentences that say the
 * same for screen readers. Times are UTC, as on the Overview's traffic chart.
 */
export type HistoryChart = { key: string; title: string; label: string; option: EChartsOption };

type Series = { name: string; values: Array<number | null> };

const utcTime = (at: string) => at.slice(11, 16);

function lineOption(history: ServerHistory, unit: string, series: Series[], max?: number): EChartsOption {
  return {
    grid: { left: 48, right: 12, top: series.length > 1 ? 28 : 16, bottom: 28 },
    legend: series.length > 1 ? { top: 0, data: series.map((entry) => entry.name) } : undefined,
    tooltip: { trigger: 'axis', valueFormatter: (value) => (value === null ? 'no report' : `${value} ${unit}`) },
    xAxis: {
      type: 'category',
      data: history.buckets.map((bucket) => utcTime(bucket.at)),
      name: 'UTC',
      boundaryGap: false,
      axisLabel: { interval: 71 },
    },
    yAxis: { type: 'value', name: unit, min: 0, ...(max === undefined ? {} : { max }) },
    series: series.map((entry) => ({
      name: entry.name,
      type: 'line',
      showSymbol: false,
      connectNulls: false,
      data: entry.values,
    })),
  };
}

const rounded = (value: number | null, digits: number) => (value === null ? null : Number(value.toFixed(digits)));

function peak(values: Array<number | null>): number | null {
  const known = values.filter((value): value is number => value !== null);
  return known.length === 0 ? null : Math.max(...known);
}

function mean(values: Array<number | null>): number | null {
  const known = values.filter((value): value is number => value !== null);
  return known.length === 0 ? null : known.reduce((sum, value) => sum + value, 0) / known.length;
}

const pick = (history: ServerHistory, key: keyof Omit<ServerHistoryBucket, 'at'>) =>
  history.buckets.map((bucket) => bucket[key]);

function summary(what: string, values: Array<number | null>, unit: string, digits: number): string {
  const average = mean(values);
  const highest = peak(values);
  if (average === null || highest === null) return `${what}: nothing reported in the last 24 hours`;
  return `${what}: mean ${average.toFixed(digits)}${unit}, peak ${highest.toFixed(digits)}${unit} in the last 24 hours`;
}

export function serverHistoryCharts(history: ServerHistory): HistoryChart[] {
  const cpu = pick(history, 'cpu');
  const memory = pick(history, 'memory');
  const load = pick(history, 'load1');
  const rx = pick(history, 'rx_rate');
  const tx = pick(history, 'tx_rate');
  const peers = pick(history, 'peers');
  const { unit, divisor } = byteScale(peak([...rx, ...tx]) ?? 0);
  const rate = (values: Array<number | null>) =>
    values.map((value) => rounded(value === null ? null : value / divisor, 2));
  return [
    {
      key: 'cpu',
      title: 'CPU and memory',
      label: `${summary('CPU', cpu, ' %', 0)}. ${summary('Memory used', memory, ' %', 0)}.`,
      option: lineOption(
        history,
        '%',
        [
          { name: 'CPU', values: cpu.map((value) => rounded(value, 1)) },
          { name: 'Memory', values: memory.map((value) => rounded(value, 1)) },
        ],
        100,
      ),
    },
    {
      key: 'load',
      title: 'Load (1 min)',
      label: `${summary('Load over 1 minute', load, '', 2)}.`,
      option: lineOption(history, '', [{ name: 'Load', values: load.map((value) => rounded(value, 2)) }]),
    },
    {
      key: 'traffic',
      title: 'Traffic',
      label: `${summary(
        'Received',
        rx.map((value) => (value === null ? null : value / divisor)),
        ` ${unit}/s`,
        1,
      )}. ${summary(
        'Sent',
        tx.map((value) => (value === null ? null : value / divisor)),
        ` ${unit}/s`,
        1,
      )}.`,
      option: lineOption(history, `${unit}/s`, [
        { name: 'Received', values: rate(rx) },
        { name: 'Sent', values: rate(tx) },
      ]),
    },
    {
      key: 'peers',
      title: 'Peers',
      label: `${summary('Peers on its interface', peers, '', 0)}.`,
      option: lineOption(history, 'peers', [{ name: 'Peers', values: peers }]),
    },
  ];
}

/** "Reported 23 h 55 min of the last 24 h (99.7 %)": how much of the day its agent was up and sending. */
export function reportedText(share: number): string {
  const minutes = Math.round(share * 24 * 60);
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  const span = hours === 0 ? `${rest} min` : rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
  const percent = share === 1 ? '100' : (share * 100).toFixed(1);
  return `Reported ${minutes === 0 ? 'never' : span} of the last 24 h (${percent} %)`;
}
