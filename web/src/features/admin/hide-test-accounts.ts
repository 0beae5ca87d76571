import { useSyncExternalStore } from 'react';

/**
 * Issue #26: the console-wide "Hide test accounts" switch, remembered in this browser. While it is
 * on, the overview, accounts and devices queries ask with `exclude_test=true`, so their figures and
 * lists leave test accounts out (the server decides who is one).
 */
const storageKey = 'qw.admin.hide-test-accounts';
const listeners = new Set<() => void>();

function read(): boolean {
  try {
    return localStorage.getItem(storageKey) === 'true';
  } catch {
    return false;
  }
}

export function setHideTestAccounts(hide: boolean): void {
  try {
    if (hide) localStorage.setItem(storageKey, 'true');
    else localStorage.removeItem(storageKey);
  } catch {
    // Storage refused (private mode): the switch still holds for this page.
  }
  memory = hide;
  for (const listener of listeners) listener();
}

let memory = read();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key !== storageKey) return;
    memory = read();
    listener();
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

export function useHideTestAccounts(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => memory,
    () => false,
  );
}

/** What a console query adds while test accounts are hidden (nothing otherwise, so its address stays as before). */
export function testAccountsQuery(hide: boolean): { exclude_test?: true } {
  return hide ? { exclude_test: true } : {};
}
