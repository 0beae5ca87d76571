import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, errors as natsErrors, type NatsConnection } from '@nats-io/transport-node';
import { RequestOne } from '@nats-io/nats-core/internal';
import { sharedNatsUrl, testNamespace } from '@qw/testkit';
import { endRequestsWithoutStacks } from '../src/bus/answered-requests.ts';

/**
 * nats-core's own errors module, the one its request code reads `RequestError` from at each use:
 * a counting class put there shows how many it builds.
 */
const require = createRequire(import.meta.url);
const errorsModule = require(path.join(path.dirname(require.resolve('@nats-io/nats-core')), 'errors.js')) as {
  RequestError: typeof natsErrors.RequestError;
};
const Original = errorsModule.RequestError;
let built = 0;
class CountedRequestError extends Original {
  constructor(...args: ConstructorParameters<typeof Original>) {
    super(...args);
    built++;
  }
}

const namespace = testNamespace();
const subject = `${namespace}.answered.echo`;
let nc: NatsConnection;

beforeAll(async () => {
  nc = await connect({ servers: sharedNatsUrl, name: 'answered-requests', noAsyncTraces: true });
  nc.subscribe(subject, { callback: (_error, msg) => void msg.respond(msg.data) });
  await nc.flush();
  errorsModule.RequestError = CountedRequestError;
});

afterAll(async () => {
  errorsModule.RequestError = Original;
  await nc.close();
});

async function answered(count: number): Promise<number> {
  built = 0;
  for (let i = 0; i < count; i++)
    expect((await nc.request(subject, `n${i}`, { timeout: 2000 })).string()).toBe(`n${i}`);
  return built;
}

type Cancel = ((error?: Error) => void) & { replaced?: Cancel };
const prototype = RequestOne.prototype as unknown as { cancel: Cancel };

describe('requests end without building an error', () => {
  it('nats-core alone builds a RequestError for every answered request', async () => {
    // Another file in this worker may have made the change already (connectBus does): undo it here.
    const current = prototype.cancel;
    prototype.cancel = current.replaced ?? current;
    try {
      expect(await answered(10)).toBe(10);
    } finally {
      prototype.cancel = current;
    }
  });

  it('with the change, answered requests build none, and time-outs and no responders fail as before', async () => {
    expect(endRequestsWithoutStacks()).toBe(true);
    expect(endRequestsWithoutStacks()).toBe(true);
    expect(await answered(10)).toBe(0);
    const silent = `${namespace}.answered.silent`;
    const sub = nc.subscribe(silent);
    await nc.flush();
    await expect(nc.request(silent, 'x', { timeout: 100 })).rejects.toBeInstanceOf(natsErrors.TimeoutError);
    sub.unsubscribe();
    const error = await nc.request(`${namespace}.answered.nobody`, 'x', { timeout: 1000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(natsErrors.RequestError);
    expect((error as InstanceType<typeof natsErrors.RequestError>).isNoResponders()).toBe(true);
  });

  it('a request ended with an error of its own still rejects with that error', async () => {
    const mux = { cancel: () => undefined };
    const failed = new RequestOne(mux as never, 'x', { timeout: 1000 }, false);
    const own = new Error('publish refused');
    failed.cancel(own);
    await expect(failed.deferred).rejects.toBe(own);
    // Ended without one: the one error made once, whichever request it is.
    const first = new RequestOne(mux as never, 'x', { timeout: 1000 }, false);
    const second = new RequestOne(mux as never, 'x', { timeout: 1000 }, false);
    first.cancel();
    second.cancel();
    const [a, b] = await Promise.all([
      first.deferred.catch((e: unknown) => e),
      second.deferred.catch((e: unknown) => e),
    ]);
    expect(a).toBe(b);
    expect(a).toBeInstanceOf(natsErrors.RequestError);
  });
});
