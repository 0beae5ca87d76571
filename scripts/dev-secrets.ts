/**
 * Development secrets live in var/dev-secrets.json, generated on first run and never committed.
 * Production passes them as environment variables.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { generateCallerKeyPair } from '@qw/platform/bus';

const file = 'var/dev-secrets.json';
const wanted: Record<string, () => string> = {
  JWT_SECRET: () => randomBytes(48).toString('base64url'),
  ADDRESS_HASH_KEY: () => randomBytes(32).toString('base64url'),
  PRIVATE_KEY_ENCRYPTION_KEY: () => randomBytes(32).toString('base64'),
  DEMO_ADMIN_PASSWORD: () => `qw-${randomBytes(9).toString('base64url')}`,
};

/** The secrets; the bus's keys and users are scripts/dev-bus.ts's (var/nats/identity). */
export function devSecrets(): Record<string, string> {
  const current: Record<string, string> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  let changed = false;
  for (const [name, make] of Object.entries(wanted)) {
    if (!current[name]) {
      current[name] = make();
      changed = true;
    }
  }
  // The gateway signs caller assertions with the private half; the services hold the public half.
  if (!current.CALLER_TOKEN_PRIVATE_KEY || !current.CALLER_TOKEN_PUBLIC_KEY) {
    const keys = generateCallerKeyPair();
    current.CALLER_TOKEN_PRIVATE_KEY = keys.privateKey;
    current.CALLER_TOKEN_PUBLIC_KEY = keys.publicKey;
    changed = true;
  }
  if (changed) {
    mkdirSync('var', { recursive: true });
    writeFileSync(file, JSON.stringify(current, null, 2), { mode: 0o600 });
  }
  return current;
}
