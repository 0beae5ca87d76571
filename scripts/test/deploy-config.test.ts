import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deployNatsConfig } from '../nats-conf.ts';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

describe('deployment configuration', () => {
  it('ships the NATS configuration scripts/nats-conf.ts makes: operator mode, no user, key or JWT in it', () => {
    const committed = read('deploy/nats.conf');
    expect(committed).toBe(deployNatsConfig());
    expect(committed).toContain('include "auth.conf"');
    expect(committed).not.toMatch(/password|authorization|operator:|SUA|eyJ/);
    // Each service brings its own user; the server mounts the installation's auth.conf.
    const compose = read('docker-compose.yml');
    expect(compose).not.toContain('NATS_PASSWORD');
    expect(compose).toContain('./var/bus/auth.conf:/etc/nats/auth.conf:ro');
    for (const service of ['gateway', 'identity', 'billing', 'provisioning', 'telemetry', 'analytics'])
      expect(compose).toContain(`./var/bus/creds/${service}.creds:/etc/nats/user.creds:ro`);
  });

  it('keeps secrets, node keys, mail files and the git history out of the image', () => {
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['.git', 'var', 'node_modules', '.env']) expect(ignored).toContain(entry);
  });

  it('has Compose refuse to start without its secrets, and the mail catcher closed to the network', () => {
    const compose = read('docker-compose.yml');
    // No default passwords: every secret is `${NAME:?…}`, never `${NAME:-value}`.
    for (const name of ['POSTGRES_PASSWORD', 'SERVICE_DB_PASSWORD', 'JWT_SECRET', 'CALLER_TOKEN_PRIVATE_KEY']) {
      expect(compose).toMatch(new RegExp(`\\$\\{${name}:\\?`));
      expect(compose).not.toMatch(new RegExp(`\\$\\{${name}:-`));
    }
    expect(compose).toMatch(/MP_UI_AUTH: \$\{MAIL_UI_AUTH:\?\}/);
    expect(compose).toContain('"127.0.0.1:8025:8025"');
    expect(read('deploy/init-db.sh')).not.toMatch(/SERVICE_DB_PASSWORD:-/);
  });
});
