import { Counter, Histogram, register } from 'prom-client';

function counter(name: string, help: string, labelNames: string[]) {
  return (register.getSingleMetric(name) as Counter<string> | undefined) ?? new Counter({ name, help, labelNames });
}

/** Bus figures for /metrics; dead letters are countable here and in the dead-letter stream. */
export const busMetrics = {
  published: counter('qw_outbox_published_total', 'Events published from the outbox', ['schema']),
  consumed: counter('qw_events_consumed_total', 'Events whose effect was committed', ['consumer']),
  duplicates: counter('qw_events_duplicate_total', 'Redelivered events skipped by the inbox', ['consumer']),
  retried: counter('qw_events_retried_total', 'Events handed back for redelivery after a failure', ['consumer']),
  deadLettered: counter('qw_events_dead_lettered_total', 'Poison events moved to the dead-letter subject', [
    'consumer',
  ]),
  rpcHandled:
    (register.getSingleMetric('qw_rpc_seconds') as Histogram<string> | undefined) ??
    new Histogram({
      name: 'qw_rpc_seconds',
      help: 'Request/reply handling time',
      labelNames: ['subject', 'outcome'],
      buckets: [0.001, 0.005, 0.02, 0.1, 0.5, 2],
    }),
};
