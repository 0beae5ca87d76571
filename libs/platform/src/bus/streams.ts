import { RetentionPolicy, StorageType, DiscardPolicy } from '@nats-io/jetstream';
import type { EventContract } from '@qw/contracts';
import type { BusConnection } from './connection.ts';

const DUPLICATE_WINDOW_NS = 10 * 60 * 1_000_000_000;

/**
 * One stream per owning service, holding exactly the subjects of its events (never its
 * `<owner>.rpc.*` subjects, which a wider wildcard would capture and answer with acks).
 * Declares the stream or brings its subject list up to date.
 */
export async function ensureStream(bus: BusConnection, owner: string, contracts: readonly EventContract[]): Promise<string> {
  const name = bus.ns.stream(owner);
  const subjects = [...new Set(contracts.map((c) => bus.ns.subject(c.subject)))].sort();
  if (subjects.length === 0) throw new Error(`stream ${name}: no event subjects`);
  for (const contract of contracts) {
    if (!contract.subject.startsWith(`${owner}.`)) throw new Error(`${contract.subject} does not belong to ${owner}`);
  }
  const config = {
    name,
    subjects,
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    max_age: 7 * 24 * 3600 * 1_000_000_000,
    duplicate_window: DUPLICATE_WINDOW_NS,
  };
  try {
    const info = await bus.jsm.streams.info(name);
    const current = [...(info.config.subjects ?? [])].sort();
    if (current.join(',') !== subjects.join(',')) {
      await bus.jsm.streams.update(name, { ...info.config, subjects: [...new Set([...current, ...subjects])] });
    }
  } catch (error) {
    if (!isNotFound(error)) throw error;
    try {
      await bus.jsm.streams.add(config);
    } catch (addError) {
      if (!isAlreadyDeclared(addError)) throw addError;
    }
  }
  return name;
}

/** The stream that keeps poison messages, so they can be counted and looked at. */
export async function ensureDeadLetterStream(bus: BusConnection): Promise<string> {
  const name = bus.ns.stream('deadletter');
  const subject = bus.ns.subject('deadletter.>');
  try {
    await bus.jsm.streams.info(name);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    try {
      await bus.jsm.streams.add({ name, subjects: [subject], storage: StorageType.File, max_age: 30 * 24 * 3600 * 1_000_000_000 });
    } catch (addError) {
      if (!isAlreadyDeclared(addError)) throw addError;
    }
  }
  return name;
}

/** Another replica declared the same stream or consumer first: the same declaration, so fine. */
export function isAlreadyDeclared(error: unknown): boolean {
  return /already in use|already exists/i.test((error as Error)?.message ?? '');
}

export function isNotFound(error: unknown): boolean {
  const e = error as { code?: unknown; message?: string; api_error?: { err_code?: number } };
  return e?.api_error?.err_code === 10059 || e?.code === 404 || e?.code === '404' || /not found/i.test(e?.message ?? '');
}
