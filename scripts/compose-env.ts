/**
 * `make up`: Docker Compose refuses to start without its secrets (no default passwords). This
 * writes them once into var/compose.env, random, mode 0600, and prints the file's name.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { busAccess } from '@qw/contracts';
import { ensureNatsCertificates, generateCallerKeyPair } from '@qw/platform/bus';
import { issueCreds, openBusIdentities, writeServerAuth } from './bus-identities.ts';

const file = 'var/compose.env';
const secret = () => randomBytes(24).toString('base64url');
const current = new Map<string, string>();
if (existsSync(file)) {
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const at = line.indexOf('=');
    if (at > 0 && !line.startsWith('#')) current.set(line.slice(0, at), line.slice(at + 1));
  }
}
const keys = generateCallerKeyPair();
const wanted: Record<string, () => string> = {
  POSTGRES_PASSWORD: secret,
  SERVICE_DB_PASSWORD: secret,
  JWT_SECRET: () => randomBytes(48).toString('base64url'),
  ADDRESS_HASH_KEY: secret,
  PRIVATE_KEY_ENCRYPTION_KEY: () => randomBytes(32).toString('base64'),
  CALLER_TOKEN_PRIVATE_KEY: () => keys.privateKey,
  CALLER_TOKEN_PUBLIC_KEY: () => keys.publicKey,
  MAIL_UI_AUTH: () => `ops:${secret()}`,
  // The Compose demo has no Stripe account: the local test checkout, by explicit opt-in. A real
  // deployment sets STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET here and removes this line.
  ALLOW_TEST_PAYMENTS: () => 'true',
};
if (!current.has('CALLER_TOKEN_PRIVATE_KEY') || !current.has('CALLER_TOKEN_PUBLIC_KEY')) {
  current.delete('CALLER_TOKEN_PRIVATE_KEY');
  current.delete('CALLER_TOKEN_PUBLIC_KEY');
}
for (const [name, make] of Object.entries(wanted)) if (!current.get(name)) current.set(name, make());
mkdirSync('var', { recursive: true });
writeFileSync(
  file,
  `# Docker Compose secrets, made by scripts/compose-env.ts; never commit.\n${[...current].map(([k, v]) => `${k}=${v}`).join('\n')}\n`,
  { mode: 0o600 },
);
// NATS speaks only TLS: a CA of this machine signs the server's certificate for the name the
// services dial (`nats`); they verify it with ca.pem. The CA's key stays in var/, never mounted.
ensureNatsCertificates('var/nats-tls', { hosts: ['nats', 'localhost', '127.0.0.1'] });
// The bus's keys stay in var/bus; the server mounts auth.conf, each service its own .creds,
// issued again at every `make up` so permissions follow bus-access.ts.
const identities = openBusIdentities('var/bus');
await writeServerAuth('var/bus', identities, '/data/accounts');
for (const user of Object.keys(busAccess)) await issueCreds('var/bus', identities, user, 0o644);
console.log(file);
