import { useMediaQuery } from '../../ui/use-media-query';

/**
 * Named series colours from the theme (ui/theme.css): teal for what comes in, amber for what goes
 * out, navy and slate for totals. Red stays for errors (DESIGN.md). The chart theme itself
 * (ui/chart-canvas.tsx) follows the colour scheme; these follow it the same way.
 */
export type ChartPalette = {
  gain: string;
  gainSoft: string;
  /** Customers coming back (MRR reactivation): blue, apart from the teal of new and expansion. */
  revival: string;
  loss: string;
  lossSoft: string;
  total: string;
  muted: string;
  /** Plans, in catalog order. */
  series: readonly string[];
  heat: readonly [string, string];
  /** Text on the lightest and on the darkest heatmap cell. */
  heatInk: readonly [string, string];
};

export const lightPalette: ChartPalette = {
  gain: '#0f766e',
  gainSoft: '#14b8a6',
  revival: '#2f6fb3',
  loss: '#b45309',
  lossSoft: '#f59e0b',
  total: '#1e3a64',
  muted: '#64748b',
  series: ['#0f766e', '#1e3a64', '#b45309', '#64748b', '#14b8a6', '#f59e0b'],
  heat: ['#e6f4f1', '#0f766e'],
  heatInk: ['#0f1f38', '#ffffff'],
};

export const darkPalette: ChartPalette = {
  gain: '#2dd4bf',
  gainSoft: '#99f6e4',
  revival: '#60a5fa',
  loss: '#f59e0b',
  lossSoft: '#fcd34d',
  total: '#93b4e8',
  muted: '#cbd5e1',
  series: ['#2dd4bf', '#93b4e8', '#fbbf24', '#cbd5e1', '#5eead4', '#fcd34d'],
  heat: ['#15283f', '#2dd4bf'],
  heatInk: ['#e6edf7', '#04211e'],
};

export function useChartPalette(): ChartPalette {
  return useMediaQuery('(prefers-color-scheme: dark)') ? darkPalette : lightPalette;
}
