import { Gauge, register } from 'prom-client';
import type { Logger } from 'pino';
import type { BusConnection } from './connection.ts';

function gauge(name: string, help: string, labelNames: string[]): Gauge<string> {
  return (register.getSingleMetric(name) as Gauge<string> | undefined) ?? new Gauge({ name, help, labelNames });
}

/**
 * Figures read from JetStream and Postgres on a timer rather than on each scrape: a scrape then
 * costs no request to the bus or the database, however many scrapers there are or however often
 * they ask. Every replica of a service reports the same durables and the same outbox table, so
 * dashboards take `max by (consumer)` or `max by (schema)`.
 */
export const sampledMetrics = {
  pending: gauge('qw_consumer_pending', 'Messages of the stream the durable has not been given yet (its lag)', [
    'consumer',
    'stream',
  ]),
  ackPending: gauge('qw_consumer_ack_pending', 'Messages handed to a reader of the durable and not yet acknowledged', [
    'consumer',
    'stream',
  ]),
  redelivered: gauge(
    'qw_consumer_redelivered',
    'Messages of the durable delivered more than once and still unacknowledged',
    ['consumer', 'stream'],
  ),
  lastActive: gauge(
    'qw_consumer_last_active_seconds',
    'Unix time of the last message the durable delivered (0 when it never has)',
    ['consumer', 'stream'],
  ),
  outboxDepth: gauge('qw_outbox_depth', 'Outbox rows not yet published to JetStream', ['schema']),
  sampledAt: gauge('qw_metrics_sampled_seconds', 'Unix time of the last successful sampling pass', ['schema']),
};

/** One figure a service reports from its own data (provisioning's peers per node). */
export type ServiceGauge = {
  name: string;
  help: string;
  labelNames: string[];
  /** Every labelled value now; a label set missing from the answer disappears from /metrics. */
  read: () => Promise<Array<{ labels: Record<string, string>; value: number }>>;
};

export type SamplerOptions = {
  bus: BusConnection;
  /** The service's schema, the `schema` label of the outbox figures. */
  schema: string;
  /** The durables to report, asked at each pass (a worker's come and go); one gone is dropped. */
  durables: () => ReadonlyArray<{ stream: string; durable: string }>;
  /** Rows waiting in the outbox (the relay's own count, so it stays true to what the relay publishes). */
  outboxDepth: () => Promise<number>;
  gauges?: readonly ServiceGauge[];
  logger: Logger;
  everyMs?: number;
};

/** Runs one sampling pass now, then every `everyMs` (5 s) until the returned stop is called. */
export function startMetricsSampler(options: SamplerOptions): () => Promise<void> {
  const everyMs = options.everyMs ?? 5000;
  const gauges = (options.gauges ?? []).map((spec) => ({
    spec,
    gauge: gauge(spec.name, spec.help, spec.labelNames),
  }));
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let failing = false;
  let reported = new Map<string, { consumer: string; stream: string }>();

  const sampleDurable = async ({ stream, durable }: { stream: string; durable: string }) => {
    const labels = { consumer: durable, stream };
    try {
      const info = await options.bus.jsm.consumers.info(stream, durable);
      sampledMetrics.pending.set(labels, info.num_pending);
      sampledMetrics.ackPending.set(labels, info.num_ack_pending);
      sampledMetrics.redelivered.set(labels, info.num_redelivered);
      // A timestamp on the wire despite the client's type; servers before 2.10 leave it out.
      const raw = info.delivered.last_active as unknown;
      const last = typeof raw === 'string' ? Date.parse(raw) / 1000 : 0;
      sampledMetrics.lastActive.set(labels, Number.isFinite(last) ? last : 0);
    } catch {
      // Not declared yet (its stream's owner has not started): nothing to report for it.
    }
  };

  const pass = async () => {
    const durables = options.durables();
    const now = new Map(durables.map(({ stream, durable }) => [`${stream}/${durable}`, { consumer: durable, stream }]));
    for (const [key, labels] of reported)
      if (!now.has(key))
        for (const figure of [
          sampledMetrics.pending,
          sampledMetrics.ackPending,
          sampledMetrics.redelivered,
          sampledMetrics.lastActive,
        ])
          figure.remove(labels);
    reported = now;
    await Promise.all(durables.map(sampleDurable));
    sampledMetrics.outboxDepth.set({ schema: options.schema }, await options.outboxDepth());
    for (const { spec, gauge: target } of gauges) {
      const values = await spec.read();
      target.reset();
      for (const { labels, value } of values) target.set(labels, value);
    }
    sampledMetrics.sampledAt.set({ schema: options.schema }, Date.now() / 1000);
  };

  const tick = () => {
    running = pass()
      .then(() => {
        failing = false;
      })
      .catch((error: unknown) => {
        // Said once per run of failures, not every 5 s: readiness already reports the outage.
        if (!failing) options.logger.warn({ err: error }, 'metrics sampling failed');
        failing = true;
      })
      .finally(() => {
        running = undefined;
        if (!stopped) timer = setTimeout(tick, everyMs);
      });
  };
  tick();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
