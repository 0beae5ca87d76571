import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generate } from 'otplib';
import { Client, confirmEmail, startStack, type Stack } from './support/stack.ts';

let stack: Stack;
const password = 'correct horse battery';

beforeAll(async () => {
  stack = await startStack({ label: 'mfa', adminEmails: ['boss@quietwire.test'] });
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
    const unverified = new Client(stack.app);
    await unverified.call('POST', '/api/auth/signup', { email: 'tess@example.com', password });
    // Two-factor sign-in needs an address its holder has proved.
    const refused = await unverified.call('POST', '/api/me/mfa/enrol');
    expect(refused.statusCode).toBe(403);
    expect(refused.data.error).toEqual({
      code: 'email_unverified',
      message: 'Confirm your email address before turning on two-factor sign-in: open the link we sent you.',
    });
    const client = await confirmEmail(stack, 'tess@example.com', password);
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

    const bad = await new Client(stack.app).call('POST', '/api/auth/mfa', {
      mfa_token: login.data.mfa_token,
      code: '123456',
    });
    expect(bad.statusCode).toBe(400);
    // The step after the one used to confirm: a fresh code.
    const good = await new Client(stack.app).call('POST', '/api/auth/mfa', {
      mfa_token: login.data.mfa_token,
      code: await codeAt(secret, 1),
    });
    expect(good.statusCode).toBe(200);
    expect(good.data.user.email).toBe('tess@example.com');
    // The challenge is spent.
    expect(
      (
        await new Client(stack.app).call('POST', '/api/auth/mfa', {
          mfa_token: login.data.mfa_token,
          code: recovery[0],
        })
      ).statusCode,
    ).toBe(401);

    // The same TOTP code cannot be replayed.
    const again = await new Client(stack.app).call('POST', '/api/auth/login', { email: 'tess@example.com', password });
    expect(
      (
        await new Client(stack.app).call('POST', '/api/auth/mfa', {
          mfa_token: again.data.mfa_token,
          code: await codeAt(secret, 1),
        })
      ).statusCode,
    ).toBe(400);
    const withRecovery = await new Client(stack.app).call('POST', '/api/auth/mfa', {
      mfa_token: again.data.mfa_token,
      code: recovery[0]!.toUpperCase(),
    });
    expect(withRecovery.statusCode).toBe(200);

    const third = await new Client(stack.app).call('POST', '/api/auth/login', { email: 'tess@example.com', password });
    expect(
      (
        await new Client(stack.app).call('POST', '/api/auth/mfa', {
          mfa_token: third.data.mfa_token,
          code: recovery[0],
        })
      ).statusCode,
    ).toBe(400);
  });

  it('ends a challenge after five wrong codes', async () => {
    await new Client(stack.app).call('POST', '/api/auth/signup', { email: 'uma@example.com', password });
    const client = await confirmEmail(stack, 'uma@example.com', password);
    const { secret } = (await client.call('POST', '/api/me/mfa/enrol')).data;
    await client.call('POST', '/api/me/mfa/confirm', { code: await codeAt(secret) });
    const login = await new Client(stack.app).call('POST', '/api/auth/login', { email: 'uma@example.com', password });
    for (let i = 0; i < 5; i++) {
      expect(
        (await new Client(stack.app).call('POST', '/api/auth/mfa', { mfa_token: login.data.mfa_token, code: '999999' }))
          .statusCode,
      ).toBe(400);
    }
    const late = await new Client(stack.app).call('POST', '/api/auth/mfa', {
      mfa_token: login.data.mfa_token,
      code: await codeAt(secret, 1),
    });
    expect(late.statusCode).toBe(401);
    expect(late.data.error.message).toBe('This sign-in has timed out. Enter your email and password again.');
  });

  it('counts wrong codes per account across challenges: five in 15 minutes make it wait, longer each time; a right code clears the count', async () => {
    await new Client(stack.app).call('POST', '/api/auth/signup', { email: 'wes@example.com', password });
    const client = await confirmEmail(stack, 'wes@example.com', password);
    const { secret } = (await client.call('POST', '/api/me/mfa/enrol')).data;
    await client.call('POST', '/api/me/mfa/confirm', { code: await codeAt(secret) });
    const challenge = async () =>
      (await new Client(stack.app).call('POST', '/api/auth/login', { email: 'wes@example.com', password })).data
        .mfa_token as string;
    const attempt = (mfaToken: string, code: string) =>
      new Client(stack.app).call('POST', '/api/auth/mfa', { mfa_token: mfaToken, code });
    const me = (await client.call('GET', '/api/me')).data.user.id as string;
    const failures = `mfa:failures:${me}`;
    const ageFailures = (minutes: number) =>
      sql`update rate_events set at = at - make_interval(mins => ${minutes}) where key = ${failures}`.execute(
        stack.services.identity!.db,
      );

    // Three wrong codes on one challenge and two on the next: a third challenge is no fresh start.
    const first = await challenge();
    for (let i = 0; i < 3; i++) expect((await attempt(first, '111111')).statusCode).toBe(400);
    const second = await challenge();
    for (let i = 0; i < 2; i++) expect((await attempt(second, '222222')).statusCode).toBe(400);
    const locked = await attempt(await challenge(), await codeAt(secret, 1));
    expect(locked.statusCode).toBe(429);
    expect(locked.data.error.code).toBe('rate_limited');
    expect(locked.data.error.message).toMatch(/^Too many wrong codes\. Try again in \d+ minutes\.$/);
    const firstWait = locked.data.error.details.retry_after_seconds as number;
    expect(firstWait).toBeGreaterThan(800);
    expect(firstWait).toBeLessThanOrEqual(900);
    // Turning two-factor off asks for a code too: it waits as well.
    expect((await client.call('POST', '/api/me/mfa/disable', { code: '333333' })).statusCode).toBe(429);

    // Sixteen minutes later it may try again; five more wrong codes within the hour wait longer.
    await ageFailures(16);
    const third = await challenge();
    for (let i = 0; i < 5; i++) expect((await attempt(third, '444444')).statusCode).toBe(400);
    const lockedAgain = await attempt(await challenge(), await codeAt(secret, 1));
    expect(lockedAgain.statusCode).toBe(429);
    expect(lockedAgain.data.error.details.retry_after_seconds).toBeGreaterThan(firstWait);

    // Once the wait is over, the right code signs in and clears the count.
    await ageFailures(120);
    const good = await attempt(await challenge(), await codeAt(secret, 1));
    expect(good.statusCode).toBe(200);
    const left = await sql<{ n: number }>`select count(*)::int as n from rate_events where key = ${failures}`.execute(
      stack.services.identity!.db,
    );
    expect(left.rows[0]!.n).toBe(0);
  });

  it('turns off with a recovery code, after which sign-in needs only the password', async () => {
    await new Client(stack.app).call('POST', '/api/auth/signup', { email: 'vic@example.com', password });
    const client = await confirmEmail(stack, 'vic@example.com', password);
    const { secret } = (await client.call('POST', '/api/me/mfa/enrol')).data;
    const { recovery_codes } = (await client.call('POST', '/api/me/mfa/confirm', { code: await codeAt(secret) })).data;
    expect((await client.call('POST', '/api/me/mfa/disable', { code: 'wrong-code' })).statusCode).toBe(400);
    expect((await client.call('POST', '/api/me/mfa/disable', { code: recovery_codes[3] })).statusCode).toBe(204);
    const login = await new Client(stack.app).call('POST', '/api/auth/login', { email: 'vic@example.com', password });
    expect(login.data.access_token).toBeDefined();
  });
});

describe('two-factor sign-in and admin rights', () => {
  it('turning it on ends every other session and starts one that passed it; admin rights then need such a session', async () => {
    await new Client(stack.app).call('POST', '/api/auth/signup', { email: 'boss@quietwire.test', password });
    const here = await confirmEmail(stack, 'boss@quietwire.test', password);
    const elsewhere = new Client(stack.app, '192.0.2.60');
    const other = await elsewhere.call('POST', '/api/auth/login', { email: 'boss@quietwire.test', password });
    expect(other.data.user.is_admin).toBe(true);

    const { secret } = (await here.call('POST', '/api/me/mfa/enrol')).data;
    const before = here.cookies.get('qw_refresh');
    const confirmed = await here.call('POST', '/api/me/mfa/confirm', { code: await codeAt(secret) });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.headers['cache-control']).toBe('no-store');
    expect(confirmed.data.recovery_codes).toHaveLength(10);
    expect(confirmed.data.user).toMatchObject({ email: 'boss@quietwire.test', is_admin: true });
    expect(here.cookies.get('qw_refresh')).not.toBe(before);
    // The session that confirmed goes on with its new cookie; every session from before has ended.
    expect((await here.call('POST', '/api/auth/refresh')).data.user.is_admin).toBe(true);
    expect((await elsewhere.call('POST', '/api/auth/refresh')).statusCode).toBe(401);
    const stale = new Client(stack.app);
    stale.cookies.set('qw_refresh', before!);
    expect((await stale.call('POST', '/api/auth/refresh')).statusCode).toBe(401);

    // A session that did not pass the second factor carries no admin rights once it is on.
    await sql`update refresh_tokens set two_factor = false where user_id = (select id from users where email = 'boss@quietwire.test')`.execute(
      stack.services.identity!.db,
    );
    const downgraded = await here.call('POST', '/api/auth/refresh');
    expect(downgraded.data.user).toMatchObject({ role: 'client', is_admin: false });
    expect((await here.call('GET', '/api/me')).data).toMatchObject({ role: 'client', is_admin: false });

    // Signing in with the code gives the rights back.
    const login = await new Client(stack.app).call('POST', '/api/auth/login', {
      email: 'boss@quietwire.test',
      password,
    });
    const withCode = await new Client(stack.app).call('POST', '/api/auth/mfa', {
      mfa_token: login.data.mfa_token,
      code: await codeAt(secret, 1),
    });
    expect(withCode.data.user).toMatchObject({ role: 'admin', is_admin: true });
  });
});

describe('contact form', () => {
  it('stores the message and mails it to support with the visitor as reply-to', async () => {
    const response = await new Client(stack.app, '192.0.2.50').call('POST', '/api/contact', {
      email: 'Visitor@Example.com',
      message: 'Does the Gaming plan include routes in Asia?',
    });
    expect(response.statusCode).toBe(201);
    const mail = await stack.smtp.waitFor((m) => (m.to as { text: string }).text.includes('support@quietwire.test'));
    expect(mail.text).toContain('Does the Gaming plan include routes in Asia?');
    expect((mail.replyTo as { text: string }).text).toContain('visitor@example.com');
    const stored = await sql<{
      forwarded: boolean;
    }>`select forwarded_at is not null as forwarded from contact_messages where id = ${response.data.id}`.execute(
      stack.services.identity!.db,
    );
    expect(stored.rows[0]!.forwarded).toBe(true);
  });

  it('refuses a bad address or a message outside 10 to 5,000 characters, naming the field and storing nothing', async () => {
    const client = new Client(stack.app, '192.0.2.51');
    const before = await sql<{ n: number }>`select count(*)::int as n from contact_messages`.execute(
      stack.services.identity!.db,
    );
    const email = await client.call('POST', '/api/contact', { email: 'nope', message: 'A long enough message.' });
    expect(email.statusCode).toBe(400);
    expect(email.data.error).toMatchObject({ message: 'Enter a valid email address.', details: { field: 'email' } });
    const short = await client.call('POST', '/api/contact', { email: 'a@example.com', message: 'too short' });
    expect(short.data.error).toMatchObject({ message: 'Write at least 10 characters.', details: { field: 'message' } });
    const long = await client.call('POST', '/api/contact', { email: 'a@example.com', message: 'x'.repeat(5001) });
    expect(long.data.error).toMatchObject({
      message: 'Keep the message under 5,000 characters.',
      details: { field: 'message' },
    });
    const after = await sql<{ n: number }>`select count(*)::int as n from contact_messages`.execute(
      stack.services.identity!.db,
    );
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });

  it('stops floods from one address', async () => {
    const client = new Client(stack.app, '192.0.2.52');
    for (let i = 0; i < 5; i++) {
      expect(
        (
          await client.call('POST', '/api/contact', {
            email: 'flood@example.com',
            message: `Message number ${i} here.`,
          })
        ).statusCode,
      ).toBe(201);
    }
    const limited = await client.call('POST', '/api/contact', {
      email: 'flood@example.com',
      message: 'One message too many.',
    });
    expect(limited.statusCode).toBe(429);
    expect(limited.data.error.code).toBe('rate_limited');
    expect(
      (
        await new Client(stack.app, '192.0.2.53').call('POST', '/api/contact', {
          email: 'calm@example.com',
          message: 'A different visitor.',
        })
      ).statusCode,
    ).toBe(201);
  });
});
