import { ownerOf } from '@qw/contracts';
import { IdempotentConsumer, type ConsumerSpec, type RunningService } from '@qw/platform';

/**
 * Holding a service's durable consumers back (read-your-writes tests, issue #20): their events wait
 * in the stream while a request is answered, so a test does not depend on how fast the bus is.
 * `stopAll` stops the consumers started again by a release; call it before the stack stops.
 */
export function consumerHolds() {
  const restarted: Array<IdempotentConsumer<any>> = [];

  /** Stops the service's consumers of `specs`; the returned release starts them again. */
  async function hold(service: RunningService<any>, specs: ConsumerSpec[]): Promise<() => Promise<void>> {
    const durables = new Set(specs.map((spec) => service.bus.ns.durable(spec.name)));
    const running = service.consumers.filter((c) => durables.has(c.durableName));
    if (running.length !== specs.length)
      throw new Error(`hold: ${running.length} of ${specs.length} consumers running`);
    for (const consumer of running) await consumer.stop();
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      for (const spec of specs) {
        const consumer = new IdempotentConsumer({
          ...spec,
          stream: service.bus.ns.stream(ownerOf(spec.contract)),
          db: service.db,
          bus: service.bus,
          logger: service.logger,
        });
        await consumer.start();
        restarted.push(consumer);
        const index = service.consumers.findIndex((c) => c.durableName === consumer.durableName);
        service.consumers[index] = consumer;
      }
    };
  }

  /** `hold` for the 300 ms after the change, where the owner's answer itself waits for the dependent. */
  async function holdBriefly(
    service: RunningService<any>,
    specs: ConsumerSpec[],
  ): Promise<{ releasing: Promise<void> }> {
    const release = await hold(service, specs);
    return { releasing: new Promise((resolve) => setTimeout(resolve, 300)).then(release) };
  }

  async function stopAll(): Promise<void> {
    for (const consumer of restarted) await consumer.stop();
  }

  return { hold, holdBriefly, stopAll };
}
