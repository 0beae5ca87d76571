import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generate } from 'otplib';
import { Client, startStack, type Stack } from './support/stack.ts';

let stack: Stack;
const password = 'correct horse battery';

beforeAll(async () => {
  stack = await startStack({ label: 'mfa' });
});
afterAll(async () => {
  await stack?.stop();
});

/** A code for the step after the last one used, so the replay guard does not refuse it. */
async function codeAt(secret: string, offsetSteps = 0): Promise<string> {
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSteps * 30 });
}

describe('two-factor sign-in', () => {
  it('enrols with a QR code and a confirming code, then asks for a code at sign-in; recovery codes work once', async () => {
    const client = new Client(stack.app);
    await client.call('POST', '/api/auth/signup', { email: 'tess@example.com', password });
    const enrol = await client.call('POST', '/api/me/mfa/enrol');
    expect(enrol.statusCode).toBe(200);
    expect(enrol.data.otpauth_url).toMatch(/^otpauth:\/\/totp\/Quietwire:tess%40example\.com\?secret=/);
    expect(enrol.data.qr_data_url).toMatch(/^data:image\/png;base64,/);
    const secret: string = enrol.data.secret;

    const wrong = await client.call('POST', '/api/me/mfa/confirm', { code: '000000' });
    expect(wrong.statusCode).toBe(400);
    const confirm = await client.call('POST', '/api/me/mfa/confirm', { code: await codeAt(secret) });
    expect(confirm.statusCode).toBe(200);
    const recovery: string[] = confirm.data.recovery_codes;
    expect(recovery).toHaveLength(10);
    expect(new Set(recovery).size).toBe(10);
    expect((await client.call('GET', '/api/me')).data.mfa_enabled).toBe(true);

    const login = await new Client(stack.app).call('POST', '/api/auth/login', { email: 'tess@example.com', password });
    expect(login.data).toMatchObject({ mfa_required: true });
    expect(login.data.access_token).toBeUndefined();
    expect(login.headers['set-cookie']).toBeUndefined();

    const bad = await new Client(stack.app).call('POST', '/api/auth/mfa', { mfa_token: login.data.mfa_token, code: '123456' });
    expect(bad.statusCode).toBe(400);
    // The step after the one used to confirm: a fresh code.
    const good = await new Client(stack.app).call('POST', '/api/auth/mfa', { mfa_token: login.data.mfa_token, code: await codeAt(secret, 1) });
    expect(good.statusCode).toBe(200);
    expect(good.data.user.email).toBe('tess@example.com');
    // The challenge is spent.
    expect((await new Client(stack.app).call('POST', '/api/auth/mfa', { mfa_token: login.data.mfa_token, code: recovery[0] })).statusCode).toBe(401);

    // The same TOTP code cannot be replayed.
    const again = await new Client(stack.app).call('POST', '/api/auth/login', { email: 'tess@example.com', password });
    expect((await new Client(stack.app).call('POST', '/api/auth/mfa', { mfa_token: again.data.mfa_token, code: await codeAt(secret, 1) })).statusCode).toBe(400);
    const withRecovery = await new Client(stack.app).call('POST', '/api/auth/mfa', { mfa_token: again.data.mfa_token, code: recovery[0]!.toUpperCase() });
    expect(withRecovery.statusCode).toBe(200);

    const third = await new Client(stack.app).call('POST', '/api/auth/login', { email: 'tess@example.com', password });
    expect((await new Client(stack.app).call('POST', '/api/auth/mfa', { mfa_token: third.data.mfa_token, code: recovery[0] })).statusCode).toBe(400);
  });

  it('ends a challenge after five wrong codes', async () => {
    const client = new Client(stack.app);
    await client.call('POST', '/api/auth/signup', { email: 'uma@example.com', password });
    const { secret } = (await client.call('POST', '/api/me/mfa/enrol')).data;
    await client.call('POST', '/api/me/mfa/confirm', { code: await codeAt(secret) });
    const login = await new Client(stack.app).call('POST', '/api/auth/login', { email: 'uma@example.com', password });
    for (let i = 0; i < 5; i++) {
      expect((await new Client(stack.app).call('POST', '/api/auth/mfa', { mfa_token: login.data.mfa_token, code: '999999' })).statusCode).toBe(400);
    }
    const late = await new Client(stack.app).call('POST', '/api/auth/mfa', { mfa_token: login.data.mfa_token, code: await codeAt(secret, 1) });
    expect(late.statusCode).toBe(401);
    expect(late.data.error.message).toBe('This sign-in has timed out. Enter your email and password again.');
  });

  it('turns off with a recovery code, after which sign-in needs only the password', async () => {
    const client = new Client(stack.app);
    await client.call('POST', '/api/auth/signup', { email: 'vic@example.com', password });
    const { secret } = (await client.call('POST', '/api/me/mfa/enrol')).data;
    const { recovery_codes } = (await client.call('POST', '/api/me/mfa/confirm', { code: await codeAt(secret) })).data;
    expect((await client.call('POST', '/api/me/mfa/disable', { code: 'wrong-code' })).statusCode).toBe(400);
    expect((await client.call('POST', '/api/me/mfa/disable', { code: recovery_codes[3] })).statusCode).toBe(204);
    const login = await new Client(stack.app).call('POST', '/api/auth/login', { email: 'vic@example.com', password });
    expect(login.data.access_token).toBeDefined();
  });
});

describe('contact form', () => {
  it('stores the message and mails it to support with the visitor as reply-to', async () => {
    const response = await new Client(stack.app, '192.0.2.50').call('POST', '/api/contact', { email: 'Visitor@Example.com', message: 'Does the Gaming plan include routes in Asia?' });
    expect(response.statusCode).toBe(201);
    const mail = await stack.smtp.waitFor((m) => (m.to as { text: string }).text.includes('support@quietwire.test'));
    expect(mail.text).toContain('Does the Gaming plan include routes in Asia?');
    expect((mail.replyTo as { text: string }).text).toContain('visitor@example.com');
    const stored = await sql<{ forwarded: boolean }>`select forwarded_at is not null as forwarded from contact_messages where id = ${response.data.id}`.execute(stack.services.identity!.db);
    expect(stored.rows[0]!.forwarded).toBe(true);
  });

  it('refuses a bad address or a message outside 10 to 5,000 characters, naming the field and storing nothing', async () => {
    const client = new Client(stack.app, '192.0.2.51');
    const before = await sql<{ n: number }>`select count(*)::int as n from contact_messages`.execute(stack.services.identity!.db);
    const email = await client.call('POST', '/api/contact', { email: 'nope', message: 'A long enough message.' });
    expect(email.statusCode).toBe(400);
    expect(email.data.error).toMatchObject({ message: 'Enter a valid email address.', details: { field: 'email' } });
    const short = await client.call('POST', '/api/contact', { email: 'a@example.com', message: 'too short' });
    expect(short.data.error).toMatchObject({ message: 'Write at least 10 characters.', details: { field: 'message' } });
    const long = await client.call('POST', '/api/contact', { email: 'a@example.com', message: 'x'.repeat(5001) });
    expect(long.data.error).toMatchObject({ message: 'Keep the message under 5,000 characters.', details: { field: 'message' } });
    const after = await sql<{ n: number }>`select count(*)::int as n from contact_messages`.execute(stack.services.identity!.db);
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });

  it('stops floods from one address', async () => {
    const client = new Client(stack.app, '192.0.2.52');
    for (let i = 0; i < 5; i++) {
      expect((await client.call('POST', '/api/contact', { email: 'flood@example.com', message: `Message number ${i} here.` })).statusCode).toBe(201);
    }
    const limited = await client.call('POST', '/api/contact', { email: 'flood@example.com', message: 'One message too many.' });
    expect(limited.statusCode).toBe(429);
    expect(limited.data.error.code).toBe('rate_limited');
    expect((await new Client(stack.app, '192.0.2.53').call('POST', '/api/contact', { email: 'calm@example.com', message: 'A different visitor.' })).statusCode).toBe(201);
  });
});
