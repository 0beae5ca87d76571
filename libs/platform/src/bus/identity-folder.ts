import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BusIdentities, createBusKeys, type BusKeys, type Revocations } from './identities.ts';

/**
 * The folder that holds the bus's identities (var/nats/identity for `make dev`, var/bus for
 * Compose, the control plane's secret store in production), read by scripts/bus-identities.ts
 * and by provisioning, which issues node users at enrolment and revokes them at retirement:
 *
 *   keys.json         the operator, system account, account and signing-key seeds (mode 0600)
 *   revocations.json  user key → when it was revoked (seconds); folded into every account JWT
 *   creds/<user>.creds  each process's user, written by the script
 */
export const busKeysFile = (folder: string) => path.join(folder, 'keys.json');
export const revocationsFile = (folder: string) => path.join(folder, 'revocations.json');
export const credsFile = (folder: string, user: string) => path.join(folder, 'creds', `${user}.creds`);

const readJson = <T>(file: string, fallback: T): T =>
  existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as T) : fallback;

/** The folder's keys; an error naming the file when there are none (a service never makes a bus's keys). */
export function readBusKeys(folder: string): BusKeys {
  const file = busKeysFile(folder);
  if (!existsSync(file)) throw new Error(`no bus keys at ${file}`);
  return JSON.parse(readFileSync(file, 'utf8')) as BusKeys;
}

export function readRevocations(folder: string): Revocations {
  return readJson<Revocations>(revocationsFile(folder), {});
}

/** Both lists in one: a key revoked in either stays revoked, from the later of its two times. */
export function mergeRevocations(...lists: Revocations[]): Revocations {
  const merged: Revocations = {};
  for (const list of lists) for (const [key, at] of Object.entries(list)) merged[key] = Math.max(merged[key] ?? 0, at);
  return merged;
}

/**
 * Adds `revocations` to the folder's file (never removes one), replacing it in one rename so a
 * reader never sees half a file; answers everything now in it.
 */
export function keepRevocations(folder: string, revocations: Revocations): Revocations {
  const merged = mergeRevocations(readRevocations(folder), revocations);
  const file = revocationsFile(folder);
  const next = `${file}.${process.pid}.tmp`;
  writeFileSync(next, JSON.stringify(merged, null, 2), { mode: 0o600 });
  renameSync(next, file);
  return merged;
}

/** The identities of the folder, its keys made on first use (development and the scripts; never a service). */
export function openBusIdentities(folder: string): BusIdentities {
  mkdirSync(path.join(folder, 'creds'), { recursive: true, mode: 0o700 });
  const keysFile = busKeysFile(folder);
  if (!existsSync(keysFile)) writeFileSync(keysFile, JSON.stringify(createBusKeys(), null, 2), { mode: 0o600 });
  chmodSync(keysFile, 0o600);
  return new BusIdentities(readBusKeys(folder), readRevocations(folder));
}
