import type { Logger } from 'pino';
import { AppError, type CountedPagePath, utcDay, visitsCounted } from '@qw/contracts';
import { type BusConnection, createEnvelope } from '@qw/platform/bus';

export type VisitCounterOptions = {
  bus: BusConnection;
  logger: Logger;
  /** How often the counts go out as events (a crash loses at most this much counting). */
  flushEveryMs?: number;
  /** Views one client address may add per minute; beyond that a script is inflating the count. */
  perAddressPerMinute?: number;
};

/**
 * Public page views, counted in memory per UTC day and path and sent every few seconds as one
 * `gateway.visits.counted` event per (day, path). The only thing known of a visitor is the keyed
 * hash of their address, kept for the current minute to cap how much one client can count, and
 * never sent anywhere. Counts that could not be sent are kept and sent with the next ones.
 */
export class VisitCounter {
  private counts = new Map<string, number>();
  private minute = 0;
  private perAddress = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(private readonly options: VisitCounterOptions) {}

  count(path: CountedPagePath, addressKey: string, now = new Date()): void {
    const minute = Math.floor(now.getTime() / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.perAddress = new Map();
    }
    const seen = (this.perAddress.get(addressKey) ?? 0) + 1;
    if (seen > (this.options.perAddressPerMinute ?? 60))
      throw new AppError('rate_limited', 'Too many page views from your network. Please try again in a minute.');
    this.perAddress.set(addressKey, seen);
    const key = `${utcDay(now)}|${path}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  start(): void {
    const every = this.options.flushEveryMs ?? 5000;
    const tick = () => {
      this.timer = setTimeout(() => void this.flush().finally(tick), every);
      this.timer.unref();
    };
    tick();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    await this.flushing;
    await this.flush();
  }

  /** Sends what was counted; whatever fails to go out is counted again for the next time. */
  flush(): Promise<void> {
    this.flushing = (this.flushing ?? Promise.resolve()).then(() => this.send());
    return this.flushing;
  }

  private async send(): Promise<void> {
    if (this.counts.size === 0) return;
    const { bus, logger } = this.options;
    const batch = this.counts;
    this.counts = new Map();
    for (const [key, views] of batch) {
      const [day, path] = key.split('|') as [string, CountedPagePath];
      const envelope = createEnvelope(visitsCounted, { day, path, views });
      try {
        await bus.js.publish(bus.ns.subject(visitsCounted.subject), JSON.stringify(envelope), { msgID: envelope.id });
      } catch (error) {
        this.counts.set(key, (this.counts.get(key) ?? 0) + views);
        logger.warn({ err: error }, 'visit counts not sent yet; kept for the next attempt');
      }
    }
  }
}
