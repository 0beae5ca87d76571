import { Type, type Static, type TObject, type TProperties, type TSchema } from 'typebox';
import { Value } from 'typebox/value';

/** Raised when the environment does not describe a runnable process; one line per problem. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/**
 * Reads the variables named by the schema's properties from `env`, converts strings to the
 * declared types, applies defaults and refuses to go on while anything is missing or malformed.
 * Empty strings count as unset. The result is frozen.
 */
export function loadConfig<S extends TObject>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
  rules: ReadonlyArray<ConfigRule<Static<S>>> = [],
): Readonly<Static<S>> {
  const raw: Record<string, string> = {};
  for (const name of Object.keys(schema.properties)) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value;
  }
  const value = Value.Default(schema, Value.Convert(schema, raw)) as Record<string, unknown>;
  const required = new Set<string>((schema as { required?: string[] }).required ?? []);
  const problems: string[] = [];
  // Each variable on its own, so one bad value never hides another.
  for (const [name, property] of Object.entries(schema.properties) as Array<[string, TSchema]>) {
    if (value[name] === undefined) {
      if (required.has(name)) problems.push(`${name} is required but not set`);
      continue;
    }
    if (Value.Check(property, value[name])) continue;
    const choices = (property as { anyOf?: Array<{ const?: unknown }> }).anyOf?.map((option) => option.const);
    if (choices?.every((choice) => choice !== undefined)) {
      problems.push(`${name} is invalid: must be one of ${choices.join(', ')}`);
    } else {
      problems.push(`${name} is invalid: ${Value.Errors(property, value[name])[0]?.message ?? 'malformed'}`);
    }
  }
  if (problems.length === 0) {
    for (const rule of rules) {
      const problem = rule(value as Static<S>);
      if (problem) problems.push(problem);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(value) as Readonly<Static<S>>;
}

/** A rule across variables (the schema checks each alone): the problem, or nothing. */
export type ConfigRule<C> = (config: C) => string | undefined;

/**
 * What production may not run without, whatever development allows: NATS credentials (the bus
 * has one user per process), and for processes that send mail a real SMTP server (mail files on
 * disk would hold reset links and device keys).
 */
export function productionRequires<C extends { NODE_ENV?: string }>(...names: Array<keyof C & string>): ConfigRule<C> {
  return (config) => {
    if (config.NODE_ENV !== 'production') return undefined;
    const missing = names.filter((name) => config[name] === undefined || config[name] === '');
    return missing.length > 0 ? `${missing.join(', ')} must be set in production` : undefined;
  };
}

/** What production may not run without, when any one of several variables will do. */
export function productionRequiresOneOf<C extends { NODE_ENV?: string }>(
  ...names: Array<keyof C & string>
): ConfigRule<C> {
  return (config) => {
    if (config.NODE_ENV !== 'production') return undefined;
    return names.some((name) => config[name] !== undefined && config[name] !== '')
      ? undefined
      : `${names.join(' or ')} must be set in production`;
  };
}

/**
 * A key being replaced is held beside its successor for a while (`X_PREVIOUS` beside `X`); the
 * same value in both is a rotation half done (the new key never set), refused rather than run.
 */
export function previousDiffers<C>(previous: keyof C & string, current: keyof C & string): ConfigRule<C> {
  return (config) =>
    config[previous] !== undefined && config[previous] === config[current]
      ? `${previous} is the same as ${current}: it must hold the key being replaced`
      : undefined;
}

/** Runs `load` and, on a ConfigError, prints every problem and exits: for process entry points. */
export function loadConfigOrExit<T>(service: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${service}: cannot start. ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}

const url = (description: string) => Type.String({ minLength: 1, pattern: '^[a-z][a-z0-9+.-]*://', description });

/** Variables every service process reads. */
export const commonEnv = {
  NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('test'), Type.Literal('production')], {
    default: 'development',
  }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  NATS_URL: url('nats://host:port of the NATS server with JetStream'),
  BUS_NAMESPACE: Type.String({
    default: '',
    pattern: '^[a-z0-9_]*$',
    description: 'prefix for subjects and streams; tests use one per file',
  }),
  NATS_USER: Type.Optional(Type.String({ minLength: 1, maxLength: 80, description: "this process's NATS user" })),
  NATS_PASSWORD: Type.Optional(Type.String({ minLength: 16, description: "this process's NATS password" })),
  NATS_CREDS: Type.Optional(
    Type.String({ minLength: 1, description: "file of this process's NATS user (.creds: its JWT and seed)" }),
  ),
  NATS_CA_FILE: Type.Optional(
    Type.String({ minLength: 1, description: "PEM file of the CA that signed the NATS server's certificate (TLS)" }),
  ),
  NATS_STREAM_REPLICAS: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 5,
      description: 'servers that keep each stream: 1 on one server, 3 on a cluster of three (default 1)',
    }),
  ),
  OUTBOX_RETENTION_MS: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        'how long a published outbox row is kept to publish again if a restart of every NATS server lost it (default 300000; 0 deletes at once)',
    }),
  ),
} satisfies TProperties;

/** How a backend service's periodic tasks are scheduled across its replicas (tasks/leased-tasks.ts). */
export const taskEnv = {
  TASK_PERIODS: Type.Optional(
    Type.String({
      pattern: '^([a-z0-9-]+|\\*)=[0-9]+(,([a-z0-9-]+|\\*)=[0-9]+)*$',
      description: "task=ms,…: periods replacing the tasks' own, `*` for every task (tests run them every second)",
    }),
  ),
  TASK_LEASE_MS: Type.Optional(
    Type.Integer({
      minimum: 300,
      description: "how long a periodic task's lease lasts unrenewed; a killed holder's tasks move within it",
    }),
  ),
} satisfies TProperties;

/** `TASK_PERIODS` read into task name → period in ms. */
export function parseTaskPeriods(value: string | undefined): Record<string, number> | undefined {
  if (!value) return undefined;
  return Object.fromEntries(
    value.split(',').map((pair) => {
      const [name, ms] = pair.split('=') as [string, string];
      return [name, Number(ms)];
    }),
  );
}

/** Every backend service verifies the gateway's caller tokens with its public key. */
export const callerTokenEnv = {
  CALLER_TOKEN_PUBLIC_KEY: Type.String({
    minLength: 40,
    description: "the gateway's Ed25519 caller-token key, base64 SPKI; generated into var/ for development",
  }),
  CALLER_TOKEN_PUBLIC_KEY_PREVIOUS: Type.Optional(
    Type.String({
      minLength: 40,
      description:
        "while the gateway's key is replaced: the public key it replaces, still accepted (docs/operations.md)",
    }),
  ),
} satisfies TProperties;

/** Variables of a service that owns a Postgres schema. */
export const databaseEnv = {
  DATABASE_URL: url('postgres://user@host:port/db of the service role'),
  DATABASE_READ_URL: Type.Optional(
    url(
      'a hot standby of the same database, as the same role: the reads that tolerate lag (docs/architecture.md names them); unset: the primary',
    ),
  ),
  DATABASE_POOL_MAX: Type.Integer({
    minimum: 1,
    maximum: 200,
    default: 10,
    description: "connections this process keeps to Postgres at most (and as many again to DATABASE_READ_URL's server)",
  }),
  DATABASE_MIGRATE_URL: Type.Optional(
    url(
      'where migrations run when DATABASE_URL goes through PgBouncer: Postgres itself, same role; unset: DATABASE_URL',
    ),
  ),
  DATABASE_PREPARED_STATEMENTS: Type.Boolean({
    default: true,
    description:
      'statements sent again are prepared on each connection; false when DATABASE_URL goes through a pooler in transaction mode (PgBouncer before 1.21)',
  }),
} satisfies TProperties;

export function httpEnv(defaultPort: number) {
  return {
    HTTP_HOST: Type.String({ default: '127.0.0.1', minLength: 1 }),
    HTTP_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: defaultPort }),
  } satisfies TProperties;
}

/** Variables of a service that sends mail. */
export const mailEnv = {
  MAIL_URL: Type.Optional(
    Type.String({ pattern: '^smtps?://', description: 'SMTP server; unset: .eml files under MAIL_DIR' }),
  ),
  MAIL_FROM: Type.String({ default: 'Quietwire <no-reply@quietwire.test>', minLength: 3 }),
  MAIL_DIR: Type.String({ default: 'var/mail', minLength: 1 }),
} satisfies TProperties;
