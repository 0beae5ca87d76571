import { useEffect, useState } from 'react';
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
    color: dark
      ? ['#2dd4bf', '#93b4e8', '#fbbf24', '#cbd5e1', '#5eead4']
      : ['#0f766e', '#1e3a64', '#b45309', '#64748b', '#14b8a6'],
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

function usePrefersDark(): boolean {
  const query = '(prefers-color-scheme: dark)';
  const [dark, setDark] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const list = window.matchMedia(query);
    const onChange = () => setDark(list.matches);
    list.addEventListener('change', onChange);
    return () => list.removeEventListener('change', onChange);
  }, []);
  return dark;
}

export default function ChartCanvas({ option, label, height, loading = false }: ChartProps) {
  const dark = usePrefersDark();
  return (
    <div role="img" aria-label={label}>
      <ReactEChartsCore
        key={dark ? 'dark' : 'light'}
        echarts={echarts}
        option={option}
        theme={dark ? 'quietwire-dark' : 'quietwire-light'}
        showLoading={loading}
        notMerge
        style={{ height, width: '100%' }}
      />
    </div>
  );
}
