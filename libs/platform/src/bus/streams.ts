import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  RetentionPolicy,
  StorageType,
  type StreamInfo,
} from '@nats-io/jetstream';
import { keepsHistory, wildcardSubject, type EventContract } from '@qw/contracts';
import type { BusConnection } from './connection.ts';

const DUPLICATE_WINDOW_NS = 10 * 60 * 1_000_000_000;
const WEEK_NS = 7 * 24 * 3600 * 1_000_000_000;

/** How long a stream keeps its events: for ever for those a projection is rebuilt from, else a week. */
export function streamMaxAge(owner: string): number {
  return keepsHistory(owner) ? 0 : WEEK_NS;
}

/**
 * How many servers of a cluster keep each stream (NATS_STREAM_REPLICAS): 1 on a single server,
 * 3 on a cluster of three, where an acknowledged event is then on a majority of the servers and
 * the stream keeps serving while one of them is down.
 */
export type StreamOptions = { replicas?: number };

/**
 * One stream per owning service, holding exactly the subjects of its events (never its
 * `<owner>.rpc.*` subjects, which a wider wildcard would capture and answer with acks).
 * Declares the stream or brings it up to date (its subjects, kept with those an older or newer
 * replica of the owner declared, its age limit and its replicas), idempotently: the owner's
 * replicas may all do it at once at start.
 */
export async function ensureStream(
  bus: BusConnection,
  owner: string,
  contracts: readonly EventContract[],
  options: StreamOptions = {},
): Promise<string> {
  const name = bus.ns.stream(owner);
  const subjects = [...new Set(contracts.map((c) => bus.ns.subject(wildcardSubject(c.subject))))].sort();
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
    max_age: streamMaxAge(owner),
    duplicate_window: DUPLICATE_WINDOW_NS,
    num_replicas: options.replicas ?? 1,
  };
  if (await completeStream(bus, config)) return name;
  try {
    await bus.jsm.streams.add(config);
  } catch (error) {
    // Another replica (perhaps of another version, with other subjects) made it between this one's
    // look and its create: it is looked at again and completed. NATS 2.9 may answer a create racing
    // another replica's with "subjects overlap" rather than "already in use" (seen: an analytics
    // replica failed to start); then the stream of this name is looked for a few times, and only a
    // real overlap with another stream, where none of this name appears, stays an error.
    if (isAlreadyDeclared(error) && (await completeStream(bus, config))) return name;
    if (!isSubjectOverlap(error)) throw error;
    for (let attempt = 0; attempt < 5; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      if (await completeStream(bus, config)) return name;
    }
    throw error;
  }
  return name;
}

/** Adds the subjects a stream misses and sets its age limit and replicas; false when there is no stream yet. */
async function completeStream(
  bus: BusConnection,
  config: { name: string; subjects: string[]; max_age?: number; num_replicas: number },
): Promise<boolean> {
  let info: StreamInfo;
  try {
    info = await bus.jsm.streams.info(config.name);
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
  const wanted = { ...config, max_age: config.max_age ?? info.config.max_age };
  if (!streamHas(info.config, wanted)) {
    try {
      // A cluster copies the stream to the servers it adds (or drops the copies) while it serves.
      await bus.jsm.streams.update(config.name, {
        ...info.config,
        subjects: [...new Set([...(info.config.subjects ?? []), ...config.subjects])].sort(),
        max_age: wanted.max_age,
        num_replicas: config.num_replicas,
      });
    } catch (error) {
      // Replicas starting at once update the same stream together, and the server may time one
      // out while another's change of replicas is under way: the stream that results is what counts.
      const now = await bus.jsm.streams.info(config.name).catch(() => undefined);
      if (!now || !streamHas(now.config, wanted)) throw error;
    }
  }
  return true;
}

/** True when a stream's settings hold every subject, the age limit and the replicas wanted. */
function streamHas(
  current: { subjects?: string[]; max_age: number; num_replicas: number },
  wanted: { subjects: string[]; max_age: number; num_replicas: number },
): boolean {
  const subjects = current.subjects ?? [];
  return (
    wanted.subjects.every((subject) => subjects.includes(subject)) &&
    current.max_age === wanted.max_age &&
    current.num_replicas === wanted.num_replicas
  );
}

/** The stream that keeps poison messages, so they can be counted and looked at. */
export async function ensureDeadLetterStream(bus: BusConnection, options: StreamOptions = {}): Promise<string> {
  const name = bus.ns.stream('deadletter');
  const config = { name, subjects: [bus.ns.subject('deadletter.>')], num_replicas: options.replicas ?? 1 };
  if (await completeStream(bus, config)) return name;
  try {
    await bus.jsm.streams.add({ ...config, storage: StorageType.File, max_age: 30 * 24 * 3600 * 1_000_000_000 });
  } catch (error) {
    if (!isAlreadyDeclared(error) || !(await completeStream(bus, config))) throw error;
  }
  return name;
}

/** Another replica declared the same stream or consumer first: the same declaration, so fine. */
export function isAlreadyDeclared(error: unknown): boolean {
  return /already in use|already exists/i.test((error as Error)?.message ?? '');
}

/** A stream create refused because its subjects overlap those of a stream that exists. */
function isSubjectOverlap(error: unknown): boolean {
  const e = error as { message?: string; api_error?: { err_code?: number } };
  return e?.api_error?.err_code === 10065 || /subjects overlap/i.test(e?.message ?? '');
}

export function isNotFound(error: unknown): boolean {
  const e = error as { code?: unknown; message?: string; api_error?: { err_code?: number } };
  return (
    e?.api_error?.err_code === 10059 || e?.code === 404 || e?.code === '404' || /not found/i.test(e?.message ?? '')
  );
}

/** A durable consumer's settings as its declaration gives them; the rest are the server's defaults. */
export type DurableConfig = {
  durable_name: string;
  filter_subject: string;
  ack_policy: AckPolicy;
  deliver_policy: DeliverPolicy;
  ack_wait: number;
  max_ack_pending: number;
  max_deliver?: number;
};

/**
 * A service's own durable consumer on another owner's stream (`IdempotentConsumer`): every event
 * the stream holds, acknowledged one by one after commit, never given up by the server (the
 * consumer dead-letters after its own count of failures).
 */
export function serviceDurableConfig(bus: BusConnection, name: string, filterSubject: string): DurableConfig {
  return {
    durable_name: bus.ns.durable(name),
    filter_subject: bus.ns.subject(filterSubject),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: 30 * 1_000_000_000,
    max_ack_pending: 2000,
    max_deliver: -1,
  };
}

/**
 * Declares a durable consumer, idempotently: one create that the server answers with the
 * consumer whether this call made it or found it with the same settings, so replicas starting
 * at once all succeed with one consumer. One found with other settings (made by an earlier
 * version) is brought to these. Answers false while the stream does not exist (its owner
 * declares it when it starts); processing code then only looks the consumer up.
 */
export async function declareDurable(bus: BusConnection, stream: string, config: DurableConfig): Promise<boolean> {
  let current: { config: Partial<DurableConfig> };
  try {
    current = await bus.jsm.consumers.add(stream, config);
  } catch (error) {
    if (isNotFound(error)) return false;
    // NATS 2.10 and later refuse a create that meets other settings; 2.9 applies them.
    if (!isAlreadyDeclared(error)) throw durableRefused(stream, config, error);
    await bringUpToDate(bus, stream, config);
    return true;
  }
  if (!sameDurable(current.config, config)) await bringUpToDate(bus, stream, config);
  return true;
}

/** True when the settings a declaration gives are the ones the consumer has. */
function sameDurable(current: Partial<DurableConfig>, wanted: DurableConfig): boolean {
  return (Object.keys(wanted) as Array<keyof DurableConfig>).every((key) => current[key] === wanted[key]);
}

/** Updates what an update may change (not where delivery starts, nor how acks work). */
async function bringUpToDate(bus: BusConnection, stream: string, config: DurableConfig): Promise<void> {
  const { filter_subject, ack_wait, max_ack_pending, max_deliver } = config;
  try {
    await bus.jsm.consumers.update(stream, config.durable_name, {
      filter_subject,
      ack_wait,
      max_ack_pending,
      ...(max_deliver === undefined ? {} : { max_deliver }),
    });
  } catch (error) {
    throw durableRefused(stream, config, error);
  }
}

function durableRefused(stream: string, config: DurableConfig, error: unknown): Error {
  return new Error(
    `durable consumer ${config.durable_name} on ${stream} could not be declared: ${(error as Error)?.message ?? error}` +
      ' (settings the server cannot change, such as where delivery starts, need the consumer deleted first)',
    { cause: error },
  );
}

/**
 * Declares (or brings up to date) a durable pull consumer on `owner`'s stream that someone else
 * will read: for a node agent, whose credentials may read it but never make or change one.
 * Only events published after it was first made are delivered.
 */
export async function declareDurableConsumer(
  bus: BusConnection,
  owner: string,
  consumer: { durable: string; filterSubject: string; maxAckPending?: number },
): Promise<void> {
  const stream = bus.ns.stream(owner);
  const declared = await declareDurable(bus, stream, {
    durable_name: bus.ns.durable(consumer.durable),
    filter_subject: bus.ns.subject(consumer.filterSubject),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.New,
    ack_wait: 30_000_000_000,
    max_ack_pending: consumer.maxAckPending ?? 256,
  });
  if (!declared) throw new Error(`stream ${stream} is not declared yet`);
}
