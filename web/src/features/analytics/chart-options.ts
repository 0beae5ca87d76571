import type { EChartsOption } from 'echarts';
import type { ChurnMonthly } from './api/get-churn';
import type { Funnel } from './api/get-funnel';
import type { MrrMovements } from './api/get-mrr-movements';
import type { RevenueDaily } from './api/get-revenue-daily';
import type { SubscriptionsDaily } from './api/get-subscriptions-daily';
import type { ChartPalette } from './chart-palette';
import { formatCents, formatCount, formatPercent, monthLabel } from './format';
import type { CohortRow, RevenueByPlan } from './series';

/**
 * The echarts options of the Analytics charts (DESIGN.md "Charts": axes with units, tooltips with
 * exact values, money in USD with two decimals, dates as YYYY-MM-DD). Series hold cents; only the
 * labels divide by 100, so what the tooltip says is exactly what the server sent.
 */

type TooltipValue = number | string | Date | null | undefined | Array<number | string | Date | null | undefined>;

const asNumber = (value: TooltipValue) => Number(Array.isArray(value) ? value[value.length - 1] : value);
const moneyTip = (value: TooltipValue) => formatCents(asNumber(value));
const countTip = (value: TooltipValue) => formatCount(asNumber(value));
const percentTip = (value: TooltipValue) =>
  value === null || value === undefined || value === '-' ? '—' : formatPercent(asNumber(value));

/** Axis labels in whole dollars where the tick is whole ($1,500), else with cents ($0.50). */
function usdAxisLabel(cents: number): string {
  return cents % 100 === 0 ? `${cents < 0 ? '-' : ''}$${formatCount(Math.abs(cents) / 100)}` : formatCents(cents);
}

/** The legend is drawn above the canvas as buttons that wrap (ui/chart-canvas.tsx); echarts keeps only which series show. */
const legend = { show: false } as const;
const grid = { top: 36, left: 8, right: 16, bottom: 8 };
/** Sixty days of bars: wide enough to read on a phone, never wider than a finger. */
const barWidth = { barMaxWidth: 18, barCategoryGap: '15%', barGap: '0%' };

function moneyAxis(name = 'USD') {
  return { type: 'value' as const, name, axisLabel: { formatter: usdAxisLabel } };
}

export function revenueDailyOption(data: RevenueDaily, palette: ChartPalette): EChartsOption {
  const days = data.rows.map((row) => row.day);
  return {
    tooltip: { trigger: 'axis', valueFormatter: moneyTip },
    legend,
    grid,
    xAxis: { type: 'category', data: days },
    yAxis: moneyAxis(),
    series: [
      {
        name: 'Gross',
        type: 'bar',
        stack: 'money',
        color: palette.gain,
        data: data.rows.map((row) => row.amount_cents),
        ...barWidth,
      },
      {
        name: 'Refunds',
        type: 'bar',
        stack: 'money',
        color: palette.loss,
        data: data.rows.map((row) => -row.refunded_cents),
        ...barWidth,
      },
      {
        name: 'Net',
        type: 'line',
        color: palette.total,
        showSymbol: false,
        data: data.rows.map((row) => row.net_cents),
      },
    ],
  };
}

/**
 * The subscriptions axis (issue #26): cancels are below zero and read as such ("−10", with a true
 * minus sign), so the axis does not say 10 where it means ten cancels down.
 */
export function signedCountLabel(value: number): string {
  return value < 0 ? `\u2212${formatCount(-value)}` : formatCount(value);
}

/** New subscriptions above the axis, cancels below it: one full-width bar a day, even on a phone. */
export function subscriptionsDailyOption(data: SubscriptionsDaily, palette: ChartPalette): EChartsOption {
  return {
    tooltip: { trigger: 'axis', valueFormatter: (value) => formatCount(Math.abs(asNumber(value))) },
    legend,
    grid,
    xAxis: { type: 'category', data: data.rows.map((row) => row.day) },
    yAxis: {
      type: 'value',
      name: 'Subscriptions',
      minInterval: 1,
      axisLabel: { formatter: (value: number) => signedCountLabel(value) },
    },
    series: [
      {
        name: 'New subscriptions',
        type: 'bar',
        stack: 'subscriptions',
        color: palette.gain,
        data: data.rows.map((row) => row.new_subs),
        ...barWidth,
      },
      {
        name: 'Cancels',
        type: 'bar',
        stack: 'subscriptions',
        color: palette.loss,
        data: data.rows.map((row) => -row.cancels),
        ...barWidth,
      },
    ],
  };
}

export function revenueByPlanOption(data: RevenueByPlan, palette: ChartPalette): EChartsOption {
  return {
    tooltip: { trigger: 'axis', valueFormatter: moneyTip },
    legend,
    grid,
    xAxis: { type: 'category', data: data.months.map(monthLabel) },
    yAxis: moneyAxis(),
    series: data.plans.map((plan, index) => ({
      name: plan.name,
      type: 'bar' as const,
      stack: 'plans',
      color: palette.series[index % palette.series.length],
      data: plan.amounts,
      barMaxWidth: 40,
    })),
  };
}

export function mrrMovementsOption(data: MrrMovements, palette: ChartPalette): EChartsOption {
  const bar = (name: string, color: string, values: number[]) => ({
    name,
    type: 'bar' as const,
    stack: 'movements',
    color,
    data: values,
    barMaxWidth: 40,
  });
  const rows = data.rows;
  return {
    tooltip: { trigger: 'axis', valueFormatter: moneyTip },
    legend,
    grid,
    xAxis: { type: 'category', data: rows.map((row) => monthLabel(row.month_start)) },
    yAxis: [moneyAxis('Movement, USD'), { ...moneyAxis('MRR, USD'), splitLine: { show: false } }],
    series: [
      bar(
        'New',
        palette.gain,
        rows.map((row) => row.new_cents),
      ),
      bar(
        'Expansion',
        palette.gainSoft,
        rows.map((row) => row.expansion_cents),
      ),
      bar(
        'Reactivation',
        palette.revival,
        rows.map((row) => row.reactivation_cents),
      ),
      bar(
        'Contraction',
        palette.lossSoft,
        rows.map((row) => -row.contraction_cents),
      ),
      bar(
        'Churn',
        palette.loss,
        rows.map((row) => -row.churn_cents),
      ),
      { name: 'Net', type: 'line', color: palette.total, data: rows.map((row) => row.net_cents) },
      {
        name: 'MRR',
        type: 'line',
        yAxisIndex: 1,
        color: palette.muted,
        lineStyle: { type: 'dashed' },
        data: rows.map((row) => row.mrr_end_cents),
      },
    ],
  };
}

export function cohortHeatmapOption(rows: CohortRow[], palette: ChartPalette): EChartsOption {
  const offsets = rows[0]?.cells.map((_, offset) => `+${offset}`) ?? [];
  const cells = rows.flatMap((row, rowIndex) =>
    row.cells.flatMap((cell, offset) =>
      cell
        ? [
            {
              value: [offset, rowIndex, cell.retention_pct],
              customers: cell.customers,
              label: { color: cell.retention_pct >= 55 ? palette.heatInk[1] : palette.heatInk[0] },
            },
          ]
        : [],
    ),
  );
  return {
    tooltip: {
      formatter: (params) => {
        const item = (Array.isArray(params) ? params[0] : params)?.data as
          | { value: [number, number, number]; customers: number }
          | undefined;
        if (!item) return '';
        const [offset, rowIndex, pct] = item.value;
        const row = rows[rowIndex]!;
        return `Cohort ${monthLabel(row.month)}, month +${offset}: ${formatPercent(pct)} (${formatCount(item.customers)} of ${formatCount(row.customers)} customers)`;
      },
    },
    grid: { top: 28, left: 8, right: 16, bottom: 56 },
    xAxis: { type: 'category', data: offsets, name: 'Month', position: 'top', splitArea: { show: true } },
    // The rows are the cohorts (the months customers first paid), as the panel's description says;
    // an axis name there sat on the colour scale at 390 px (issue #26).
    yAxis: { type: 'category', data: rows.map((row) => monthLabel(row.month)), inverse: true },
    visualMap: {
      min: 0,
      max: 100,
      orient: 'horizontal',
      left: 8,
      bottom: 0,
      itemHeight: 160,
      text: ['100%', '0%'],
      inRange: { color: [...palette.heat] },
    },
    series: [
      {
        name: 'Retention',
        type: 'heatmap',
        data: cells,
        label: { show: true, formatter: (params) => `${Math.round((params.value as number[])[2]!)}%` },
      },
    ],
  };
}

export function churnOption(data: ChurnMonthly, palette: ChartPalette): EChartsOption {
  return {
    tooltip: { trigger: 'axis', valueFormatter: percentTip },
    legend,
    grid,
    xAxis: { type: 'category', data: data.rows.map((row) => monthLabel(row.month_start)) },
    yAxis: { type: 'value', name: '%', min: 0, axisLabel: { formatter: '{value}%' } },
    series: [
      { name: 'Logo churn', type: 'line', color: palette.gain, data: data.rows.map((row) => row.churn_pct) },
      {
        name: 'Revenue churn',
        type: 'line',
        color: palette.loss,
        data: data.rows.map((row) => row.revenue_churn_pct),
      },
    ],
  };
}

/** Sign-ups as bars, first payments as a line over them, and visits (once there are any) on their own axis. */
export function funnelOption(data: Funnel, palette: ChartPalette): EChartsOption {
  const days = data.rows.map((row) => row.day);
  return {
    tooltip: { trigger: 'axis', valueFormatter: countTip },
    legend,
    grid,
    xAxis: { type: 'category', data: days },
    yAxis: [
      { type: 'value', name: 'People', minInterval: 1 },
      ...(data.has_visits
        ? [{ type: 'value' as const, name: 'Visits', minInterval: 1, splitLine: { show: false } }]
        : []),
    ],
    series: [
      { name: 'Sign-ups', type: 'bar', color: palette.total, data: data.rows.map((row) => row.signups), ...barWidth },
      {
        name: 'First payments',
        type: 'line',
        color: palette.gain,
        symbolSize: 5,
        data: data.rows.map((row) => row.first_paid),
      },
      ...(data.has_visits
        ? [
            {
              name: 'Visits',
              type: 'line' as const,
              yAxisIndex: 1,
              color: palette.muted,
              lineStyle: { type: 'dashed' as const },
              showSymbol: false,
              data: data.rows.map((row) => row.visits),
            },
          ]
        : []),
    ],
  };
}
