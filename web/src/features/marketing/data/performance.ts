/** Spec §1: claimed typical performance. Every place that shows a figure also shows the disclaimer. */
export const performanceClaims = [
  { label: 'Download', value: '450-900 Mbps' },
  { label: 'Upload', value: '350-800 Mbps' },
  { label: 'Latency', value: '8-20 ms' },
  { label: 'Gaming routes', value: '10-30% lower ping' },
] as const;

export const performanceDisclaimer =
  'Typical figures, not guaranteed. Your speed depends on your own connection, the distance to the server and how busy it is.';
