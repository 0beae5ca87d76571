import { lazy, Suspense } from 'react';
import type { EChartsOption } from 'echarts';
import { Skeleton } from './skeleton';

/** The echarts code loads only when a chart is first shown, so public pages never carry it. */
const ChartCanvas = lazy(() => import('./chart-canvas'));

export type ChartProps = {
  option: EChartsOption;
  /** What the chart shows, for screen readers (e.g. 'Traffic in the last 24 hours, in MB per hour'). */
  label: string;
  height?: number;
  loading?: boolean;
};

/**
 * A chart in the Quietwire theme (line, bar, pie, heatmap, funnel). Give axes units in their
 * names, money as USD with two decimals and dates as YYYY-MM-DD (DESIGN.md "Charts").
 */
export function Chart(props: ChartProps) {
  const height = props.height ?? 280;
  return (
    <Suspense fallback={<Skeleton height={height} />}>
      <ChartCanvas {...props} height={height} />
    </Suspense>
  );
}
