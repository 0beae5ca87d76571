import { useMemo, useState } from 'react';
import type { EChartsOption } from 'echarts';
import ReactEChartsCore from 'echarts-for-react/esm/core';
import { BarChart, FunnelChart, HeatmapChart, LineChart, PieChart } from 'echarts/charts';
import {
  DatasetComponent,
  GridComponent,
  LegendComponent,
  TitleComponent,
  TooltipComponent,
  VisualMapComponent,
} from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import type { ChartProps } from './chart';
import './chart.css';
import { useMediaQuery } from './use-media-query';

echarts.use([
  LineChart,
  BarChart,
  PieChart,
  HeatmapChart,
  FunnelChart,
  DatasetComponent,
  GridComponent,
  LegendComponent,
  TitleComponent,
  TooltipComponent,
  VisualMapComponent,
  CanvasRenderer,
]);

const palette = {
  light: ['#0f766e', '#1e3a64', '#b45309', '#64748b', '#14b8a6'],
  dark: ['#2dd4bf', '#93b4e8', '#fbbf24', '#cbd5e1', '#5eead4'],
};

/** The same colours as theme.css: teal accent first, then navy, amber and slate. */
function theme(dark: boolean) {
  const ink = dark ? '#e6edf7' : '#0f1f38';
  const muted = dark ? '#a7b4c8' : '#475569';
  const line = dark ? '#263651' : '#d6dee9';
  const axis = {
    axisLine: { lineStyle: { color: line } },
    axisTick: { lineStyle: { color: line } },
    axisLabel: { color: muted },
    splitLine: { lineStyle: { color: line } },
    nameTextStyle: { color: muted },
  };
  return {
    color: dark ? palette.dark : palette.light,
    backgroundColor: 'transparent',
    textStyle: { color: ink, fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif' },
    title: { textStyle: { color: ink }, subtextStyle: { color: muted } },
    legend: { textStyle: { color: muted } },
    tooltip: { backgroundColor: dark ? '#111d31' : '#ffffff', borderColor: line, textStyle: { color: ink } },
    categoryAxis: axis,
    valueAxis: axis,
    timeAxis: axis,
  };
}

echarts.registerTheme('quietwire-light', theme(false));
echarts.registerTheme('quietwire-dark', theme(true));

export type LegendEntry = { name: string; color: string };

/** The series a chart's legend names, with their colours (a series' own, else the theme's in turn). */
export function legendEntries(option: EChartsOption, colors: string[]): LegendEntry[] {
  if (!option.legend) return [];
  const series = Array.isArray(option.series) ? option.series : option.series ? [option.series] : [];
  return series.flatMap((item, index) => {
    const name = typeof item.name === 'string' ? item.name : null;
    if (!name) return [];
    const own = (item as { color?: unknown }).color;
    return [{ name, color: typeof own === 'string' ? own : colors[index % colors.length]! }];
  });
}

/**
 * The option echarts is given: the chart's own, with the legend hidden (our buttons stand for it,
 * `hidden` naming the series switched off), and without animation for a visitor who asks for less
 * motion (`still`), as the rest of the UI does (theme.css).
 */
export function shownOption(
  option: EChartsOption,
  entries: readonly LegendEntry[],
  hidden: ReadonlySet<string>,
  still: boolean,
): EChartsOption {
  const legend =
    entries.length === 0
      ? {}
      : {
          legend: {
            show: false,
            data: entries.map((entry) => entry.name),
            selected: Object.fromEntries(entries.map((entry) => [entry.name, !hidden.has(entry.name)])),
          },
        };
  return entries.length === 0 && !still ? option : { ...option, ...legend, ...(still ? { animation: false } : {}) };
}

/**
 * The chart, with its legend drawn as a list of buttons above the canvas (issue #26): it wraps
 * onto as many lines as a narrow screen needs, is never paged or cut, and each button shows or
 * hides its series (echarts' own legend stays, hidden, to carry which are shown).
 */
export default function ChartCanvas({ option, label, height, loading = false }: ChartProps) {
  const dark = useMediaQuery('(prefers-color-scheme: dark)');
  const still = useMediaQuery('(prefers-reduced-motion: reduce)');
  const entries = useMemo(() => legendEntries(option, dark ? palette.dark : palette.light), [option, dark]);
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const shown = useMemo(() => shownOption(option, entries, hidden, still), [option, entries, hidden, still]);
  const toggle = (name: string) =>
    setHidden((before) => {
      const after = new Set(before);
      if (after.has(name)) after.delete(name);
      else after.add(name);
      return after;
    });
  return (
    <div className="qw-chart">
      {entries.length > 0 && (
        <ul className="qw-chart-legend" aria-label={`Series of ${label}`}>
          {entries.map((entry) => (
            <li key={entry.name}>
              <button
                type="button"
                className="qw-chart-legend__item"
                aria-pressed={!hidden.has(entry.name)}
                onClick={() => toggle(entry.name)}
              >
                <span className="qw-chart-legend__swatch" style={{ background: entry.color }} aria-hidden="true" />
                {entry.name}
              </button>
            </li>
          ))}
        </ul>
      )}
      <div role="img" aria-label={label}>
        <ReactEChartsCore
          key={dark ? 'dark' : 'light'}
          echarts={echarts}
          option={shown}
          theme={dark ? 'quietwire-dark' : 'quietwire-light'}
          showLoading={loading}
          notMerge
          style={{ height, width: '100%' }}
        />
      </div>
    </div>
  );
}
