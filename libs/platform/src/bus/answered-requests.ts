import { errors } from '@nats-io/nats-core';
import { RequestOne } from '@nats-io/nats-core/internal';

/**
 * The rejection nats-core gives a request's promise when it ends the request without an error of
 * its own. That happens only once the request is already over: answered (the promise resolved) or
 * timed out (the caller already has the TimeoutError). So nobody ever sees it.
 */
const ended = new errors.RequestError('cancelled');

type Cancel = ((error?: Error) => void) & { replaced?: Cancel };

/**
 * nats-core (3.x) ends every request with `cancel()`, and `cancel()` builds a new
 * `RequestError("cancelled")` to reject a promise that is already settled. Building an Error
 * captures a stack, `noAsyncTraces` or not: that was 3–5% of the gateway's CPU, once for each
 * RPC (issue #24). This gives `cancel()` one error made once instead. A `cancel(error)` with an
 * error of its own, such as a failed publish, passes that error as before.
 *
 * Changes nats-core's `RequestOne` class (exported by the package as internal, not public API),
 * once however often it is called. Returns false, changing nothing, when the class is not the shape this was
 * written for.
 */
export function endRequestsWithoutStacks(): boolean {
  const prototype = RequestOne?.prototype as { cancel?: Cancel } | undefined;
  const cancel = prototype?.cancel;
  if (typeof cancel !== 'function' || cancel.length > 1) return false;
  if (cancel.replaced) return true;
  const instead: Cancel = function (this: unknown, error?: Error) {
    cancel.call(this, error ?? ended);
  };
  // What it replaced, so that a second call leaves it as it is (and a test can compare).
  instead.replaced = cancel;
  prototype!.cancel = instead;
  return true;
}
