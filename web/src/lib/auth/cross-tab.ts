/**
 * What tabs of the same site tell each other about the session, and the lock that keeps two tabs
 * from spending the same refresh cookie at once (the server treats a reused refresh token as
 * theft and ends the whole session family).
 */

export type CrossTabMessage = { type: 'signed-out' } | { type: 'signed-in'; userId: string };

const channelName = 'qw-auth';
const lockName = 'qw-refresh';
const storageLockKey = 'qw.refresh-lock';
const storageMessageKey = 'qw.auth-message';
/** A tab that dies while holding the storage lock frees it after this long. */
const storageLockMs = 10_000;

const tabId = Math.random().toString(36).slice(2);

type Unsubscribe = () => void;

/** Sends a message to the other tabs (BroadcastChannel, or a storage event where that is missing). */
export function broadcast(message: CrossTabMessage): void {
  try {
    if (typeof BroadcastChannel !== 'undefined') {
      const channel = new BroadcastChannel(channelName);
      channel.postMessage({ ...message, from: tabId });
      channel.close();
      return;
    }
    localStorage.setItem(storageMessageKey, JSON.stringify({ ...message, at: Date.now(), from: tabId }));
  } catch {
    // Private modes may refuse storage; other tabs then find out at their next refresh.
  }
}

export function onCrossTabMessage(handle: (message: CrossTabMessage) => void): Unsubscribe {
  if (typeof BroadcastChannel !== 'undefined') {
    const channel = new BroadcastChannel(channelName);
    // A tab's own listener hears its own messages too; only the other tabs' matter.
    channel.onmessage = (event: MessageEvent<CrossTabMessage & { from?: string }>) => {
      if (event.data?.from !== tabId) handle(event.data);
    };
    return () => channel.close();
  }
  const onStorage = (event: StorageEvent) => {
    if (event.key !== storageMessageKey || !event.newValue) return;
    try {
      const message = JSON.parse(event.newValue) as CrossTabMessage & { from?: string };
      if (message.from !== tabId) handle(message);
    } catch {
      // Not ours.
    }
  };
  window.addEventListener('storage', onStorage);
  return () => window.removeEventListener('storage', onStorage);
}

/**
 * Runs `work` while no other tab of this site runs its own: the Web Locks API where it exists
 * (secure contexts), else a lock kept in localStorage with an expiry.
 */
export async function withRefreshLock<T>(work: () => Promise<T>): Promise<T> {
  const locks = typeof navigator !== 'undefined' ? (navigator as Navigator & { locks?: LockManager }).locks : undefined;
  if (locks && typeof locks.request === 'function') {
    return locks.request(lockName, { mode: 'exclusive' }, () => work()) as Promise<T>;
  }
  return withStorageLock(work);
}

async function withStorageLock<T>(work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + storageLockMs;
  for (;;) {
    if (tryTakeStorageLock()) break;
    // Give up waiting rather than never refreshing; the holder has most likely finished or died.
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  try {
    return await work();
  } finally {
    try {
      if (readStorageLock()?.owner === tabId) localStorage.removeItem(storageLockKey);
    } catch {
      // Storage refused: nothing to release.
    }
  }
}

function readStorageLock(): { owner: string; until: number } | null {
  try {
    const raw = localStorage.getItem(storageLockKey);
    return raw ? (JSON.parse(raw) as { owner: string; until: number }) : null;
  } catch {
    return null;
  }
}

function tryTakeStorageLock(): boolean {
  try {
    const current = readStorageLock();
    if (current && current.owner !== tabId && current.until > Date.now()) return false;
    localStorage.setItem(storageLockKey, JSON.stringify({ owner: tabId, until: Date.now() + storageLockMs }));
    // Two tabs may both have written; the last write wins, and only its owner goes ahead.
    return readStorageLock()?.owner === tabId;
  } catch {
    return true;
  }
}
