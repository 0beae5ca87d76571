import { useEffect, useSyncExternalStore } from 'react';

/**
 * Pauses the automatic redirect for signed-in people (spec §2) while a screen runs its own flow
 * that signs someone in and then navigates by itself: the post-checkout submit signs up, claims
 * the purchase and only then leaves; the redirect must not cut it short.
 */
let holds = 0;
const listeners = new Set<() => void>();

function notify() {
  for (const listener of [...listeners]) listener();
}

/** Takes a hold at once (synchronously, before any session event can fire); call the result to let go. */
export function suspendAutoRedirect(): () => void {
  holds++;
  notify();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holds--;
    notify();
  };
}

export function isAutoRedirectSuspended(): boolean {
  return holds > 0;
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useAutoRedirectSuspended(): boolean {
  return useSyncExternalStore(subscribe, isAutoRedirectSuspended, isAutoRedirectSuspended);
}

/** Holds the pause while `active` is true and the component is mounted. */
export function useSuspendAutoRedirect(active: boolean): void {
  useEffect(() => (active ? suspendAutoRedirect() : undefined), [active]);
}
