import { describe, expect, it } from 'vitest';
import { spawnTsProcess, testCallerKeys } from '@qw/testkit';

/** Starts a process with this environment and waits for it to exit on its own. */
async function exitOf(entry: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const process = await spawnTsProcess(entry, entry, env);
  const code = await new Promise<number | null>((resolve) => process.child.once('exit', (exit) => resolve(exit)));
  return { code, output: process.output() };
}

const service = {
  NODE_ENV: 'production',
  NATS_URL: 'nats://127.0.0.1:1',
  DATABASE_URL: 'postgres://qw_identity@127.0.0.1:1/quietwire',
  CALLER_TOKEN_PUBLIC_KEY: testCallerKeys.publicKey,
  NATS_PASSWORD: 'a-password-long-enough',
};

describe('production refuses what development allows', () => {
  it('a service that sends mail will not write it to files: no MAIL_URL, no start', async () => {
    const { code, output } = await exitOf('services/identity/src/main.ts', service);
    expect(code).toBe(78);
    expect(output).toContain('MAIL_URL must be set in production');
  });

  it("identity's demo tools (back-dated, pre-confirmed accounts) never run in production", async () => {
    const { code, output } = await exitOf('services/identity/src/main.ts', {
      ...service,
      MAIL_URL: 'smtp://127.0.0.1:1',
      DEMO_TOOLS: 'true',
    });
    expect(code).toBe(78);
    expect(output).toContain(
      'DEMO_TOOLS must be off in production: it makes accounts with a past sign-up date and a confirmed address without their mailbox',
    );
    expect(output).not.toContain('MAIL_URL');
  });

  it('no process joins the bus without its NATS credentials', async () => {
    const { NATS_PASSWORD: _, ...withoutPassword } = service;
    const telemetry = await exitOf('services/telemetry/src/main.ts', withoutPassword);
    expect(telemetry.code).toBe(78);
    expect(telemetry.output).toContain('NATS_CREDS or NATS_PASSWORD must be set in production');
    const gateway = await exitOf('services/gateway/src/main.ts', {
      NODE_ENV: 'production',
      NATS_URL: 'nats://127.0.0.1:1',
      JWT_SECRET: 'j'.repeat(40),
      ADDRESS_HASH_KEY: 'a'.repeat(40),
      CALLER_TOKEN_PRIVATE_KEY: testCallerKeys.privateKey,
    });
    expect(gateway.code).toBe(78);
    expect(gateway.output).toContain('NATS_CREDS or NATS_PASSWORD must be set in production');
  });

  it('a rotation half done does not start: a previous key equal to the current one', async () => {
    const gateway = await exitOf('services/gateway/src/main.ts', {
      NATS_URL: 'nats://127.0.0.1:1',
      JWT_SECRET: 'j'.repeat(40),
      JWT_SECRET_PREVIOUS: 'j'.repeat(40),
      ADDRESS_HASH_KEY: 'a'.repeat(40),
      CALLER_TOKEN_PRIVATE_KEY: testCallerKeys.privateKey,
    });
    expect(gateway.code).toBe(78);
    expect(gateway.output).toContain('JWT_SECRET_PREVIOUS is the same as JWT_SECRET');
    const telemetry = await exitOf('services/telemetry/src/main.ts', {
      ...service,
      CALLER_TOKEN_PUBLIC_KEY_PREVIOUS: testCallerKeys.publicKey,
    });
    expect(telemetry.code).toBe(78);
    expect(telemetry.output).toContain('CALLER_TOKEN_PUBLIC_KEY_PREVIOUS is the same as CALLER_TOKEN_PUBLIC_KEY');
    const sealingKey = Buffer.alloc(32, 7).toString('base64');
    const provisioning = await exitOf('services/provisioning/src/main.ts', {
      ...service,
      MAIL_URL: 'smtp://127.0.0.1:1',
      PRIVATE_KEY_ENCRYPTION_KEY: sealingKey,
      PRIVATE_KEY_ENCRYPTION_KEY_PREVIOUS: sealingKey,
    });
    expect(provisioning.code).toBe(78);
    expect(provisioning.output).toContain(
      'PRIVATE_KEY_ENCRYPTION_KEY_PREVIOUS is the same as PRIVATE_KEY_ENCRYPTION_KEY',
    );
  });
});
