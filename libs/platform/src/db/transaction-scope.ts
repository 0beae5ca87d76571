import { AsyncLocalStorage } from 'node:async_hooks';
import { TransactionBuilder } from 'kysely';

/**
 * Knows whether the code running now is inside an open transaction, so that a call to another
 * service made there can be caught (RpcClient.request): a network call under a lock holds the
 * lock and a pooled connection for as long as the other service takes, and with replicas a slow
 * or restarting service becomes held locks and an exhausted pool everywhere.
 *
 * Once `trackTransactions()` ran (the check switched on, see `refuseRpcInTransactions`), every
 * `db.transaction().execute(callback)` runs its callback in a scope that closes when the
 * transaction ends; work the callback starts and that outlives it (a woken queue) sees it closed.
 * Until then transactions run as kysely runs them, with no scope to pay for.
 */
type Scope = { open: boolean };

const scopes = new AsyncLocalStorage<Scope>();
const patched = Symbol.for('qw.transaction-scope');

type Execute = TransactionBuilder<unknown>['execute'];
/** kysely's prototype; while tracked, `patched` holds kysely's own execute, to be put back. */
type Patchable = { execute: Execute; [patched]?: Execute };
const prototype = TransactionBuilder.prototype as unknown as Patchable;

/** Wraps every transaction from now on in a scope `inTransaction()` reads. Idempotent. */
export function trackTransactions(): void {
  if (prototype[patched]) return;
  const execute = prototype.execute;
  prototype.execute = function (this: TransactionBuilder<unknown>, callback) {
    return execute.call(this, async (tx) => {
      const scope: Scope = { open: true };
      try {
        return await scopes.run(scope, () => callback(tx));
      } finally {
        scope.open = false;
      }
    });
  } as Execute;
  prototype[patched] = execute;
}

/**
 * Undoes `trackTransactions`: kysely's execute again, and the scope's storage disabled, which
 * takes Node's async hooks off every promise of the process when nothing else uses them. For
 * benchmarks that assemble the tests' stack in one process: they measure what production runs.
 */
export function untrackTransactions(): void {
  const original = prototype[patched];
  if (!original) return;
  prototype.execute = original;
  delete prototype[patched];
  scopes.disable();
}

/** Whether a transaction is open in the current async context (always false until tracked). */
export function inTransaction(): boolean {
  return scopes.getStore()?.open === true;
}
