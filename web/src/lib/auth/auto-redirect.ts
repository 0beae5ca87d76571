import { useEffect, useMemo, useRef, useSyncExternalStore } from 'react';

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
function suspendAutoRedirect(): () => void {
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

function isAutoRedirectSuspended(): boolean {
  return holds > 0;
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useAutoRedirectSuspended(): boolean {
  return useSyncExternalStore(subscribe, isAutoRedirectSuspended, isAutoRedirectSuspended);
}

/**
 * For a screen that signs someone in and navigates by itself: `hold()` pauses the redirect at once
 * (a second hold keeps the one), `release()` lets go, and unmounting lets go too.
 */
export function useAutoRedirectHold(): { hold: () => void; release: () => void } {
  const releaseHold = useRef<(() => void) | null>(null);
  useEffect(() => () => releaseHold.current?.(), []);
  return useMemo(
    () => ({
      hold: () => {
        releaseHold.current ??= suspendAutoRedirect();
      },
      release: () => {
        releaseHold.current?.();
        releaseHold.current = null;
      },
    }),
    [],
  );
}
