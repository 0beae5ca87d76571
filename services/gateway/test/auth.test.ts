import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { adminStatusRpc, type Caller } from '@qw/contracts';
import { identityService } from '@qw/identity';
import { callerTokenSigner, RpcClient } from '@qw/platform';
import { launchService, testCallerKeys } from '@qw/testkit';
import { Client, confirmEmail, linkToken, startStack, type Stack } from './support/stack.ts';

let stack: Stack;
const password = 'correct horse battery';

beforeAll(async () => {
  stack = await startStack({ label: 'auth', adminEmails: ['Ops@Quietwire.test'] });
});
afterAll(async () => {
  await stack?.stop();
});

let addresses = 0;
/** A client from an address of its own: sign-ups are limited per address. */
function newClient(): Client {
  addresses += 1;
  return new Client(stack.app, `203.0.113.${addresses}`);
}

async function signUp(email: string, client = newClient()) {
  const response = await client.call('POST', '/api/auth/signup', { email, password });
  return { client, response };
}

const identityDb = () => stack.services.identity!.db;

describe('sign-up', () => {
  it('creates the account, answers a session with the refresh token in a strict httpOnly cookie, and mails a verification link', async () => {
    const { client, response } = await signUp('Ada@Example.com');
    expect(response.statusCode).toBe(201);
    expect(response.data.token_type).toBe('bearer');
    expect(response.data.user).toMatchObject({
      email: 'ada@example.com',
      account_type: 'personal',
      role: 'client',
      is_admin: false,
      email_verified: false,
    });
    const setCookie = String(response.headers['set-cookie']);
    expect(setCookie).toMatch(/qw_refresh=[\w-]+/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).toMatch(/Path=\/api\/auth/);
    expect(response.headers['cache-control']).toBe('no-store');

    const me = await client.call('GET', '/api/me');
    expect(me.statusCode).toBe(200);
    expect(me.data).toMatchObject({
      role: 'client',
      is_admin: false,
      email_verified: false,
      mfa_enabled: false,
      org_member: false,
    });
    expect(me.data.profile).toMatchObject({ email: 'ada@example.com', full_name: null, account_type: 'personal' });

    const mail = await stack.smtp.waitFor((m) => (m.to as { text: string }).text.includes('ada@example.com'));
    expect(mail.subject).toBe('Confirm your email for Quietwire');
    expect(mail.text).toContain('http://localhost:8080/auth/callback?token=');
    expect(mail.html).toBeTruthy();
  });

  it('refuses a second account for the same email (any case), with a message the post-checkout page recognises', async () => {
    const response = (await signUp('ADA@example.com')).response;
    expect(response.statusCode).toBe(409);
    expect(response.data.error.code).toBe('already_exists');
    expect(response.data.error.message).toMatch(/registered|exists|already/i);
    const users = await sql<{
      n: number;
    }>`select count(*)::int as n from users where email = 'ada@example.com'`.execute(identityDb());
    expect(users.rows[0]!.n).toBe(1);
  });

  it('refuses weak passwords and bad addresses with a clear message, writing nothing', async () => {
    const short = await new Client(stack.app).call('POST', '/api/auth/signup', {
      email: 'weak@example.com',
      password: 'short',
    });
    expect(short.statusCode).toBe(422);
    expect(short.data.error).toEqual({
      code: 'weak_password',
      message: 'Password must be at least 10 characters.',
      details: { field: 'password' },
    });
    const common = await new Client(stack.app).call('POST', '/api/auth/signup', {
      email: 'weak@example.com',
      password: 'password123',
    });
    expect(common.data.error.message).toBe('This password is too common. Choose a less predictable one.');
    const bad = await new Client(stack.app).call('POST', '/api/auth/signup', { email: 'not-an-address', password });
    expect(bad.statusCode).toBe(400);
    expect(bad.data.error.message).toBe('Enter a valid email address.');
    const missing = await new Client(stack.app).call('POST', '/api/auth/signup', { email: 'x@example.com' });
    expect(missing.statusCode).toBe(400);
    expect(missing.data.error.code).toBe('validation_failed');
    const users = await sql<{
      n: number;
    }>`select count(*)::int as n from users where email in ('weak@example.com', 'not-an-address', 'x@example.com')`.execute(
      identityDb(),
    );
    expect(users.rows[0]!.n).toBe(0);
  });
});

describe('sign-in', () => {
  it('signs in with the right password and says nothing about which part was wrong otherwise', async () => {
    await signUp('bob@example.com');
    const ok = await new Client(stack.app).call('POST', '/api/auth/login', { email: ' BOB@example.com ', password });
    expect(ok.statusCode).toBe(200);
    expect(ok.data.user.email).toBe('bob@example.com');
    const wrong = await new Client(stack.app).call('POST', '/api/auth/login', {
      email: 'bob@example.com',
      password: 'wrong password here',
    });
    const unknown = await new Client(stack.app).call('POST', '/api/auth/login', {
      email: 'nobody@example.com',
      password,
    });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.data).toEqual(unknown.data);
    expect(wrong.data.error).toEqual({ code: 'invalid_credentials', message: 'Invalid email or password.' });
  });

  it('failures from other addresses never lock the owner out: the lock is per account and address, and per address', async () => {
    await signUp('carol@example.com');
    for (let i = 0; i < 5; i++) {
      const response = await new Client(stack.app, `198.51.100.${i + 1}`).call('POST', '/api/auth/login', {
        email: 'carol@example.com',
        password: 'not the password',
      });
      expect(response.statusCode).toBe(401);
    }
    const owner = await new Client(stack.app, '198.51.100.99').call('POST', '/api/auth/login', {
      email: 'carol@example.com',
      password,
    });
    expect(owner.statusCode).toBe(200);

    // Five failures from one address lock that address out of this account, even with the right password.
    for (let i = 0; i < 5; i++) {
      const response = await new Client(stack.app, '198.51.100.50').call('POST', '/api/auth/login', {
        email: 'carol@example.com',
        password: 'not the password',
      });
      expect(response.statusCode).toBe(401);
    }
    const limited = await new Client(stack.app, '198.51.100.50').call('POST', '/api/auth/login', {
      email: 'carol@example.com',
      password,
    });
    expect(limited.statusCode).toBe(429);
    expect(limited.data.error.code).toBe('rate_limited');
    expect(limited.data.error.message).toMatch(/^Too many sign-in attempts\. Try again in \d+ minutes\.$/);
    expect(limited.data.error.details.retry_after_seconds).toBeGreaterThan(800);
    expect(
      (
        await new Client(stack.app, '198.51.100.51').call('POST', '/api/auth/login', {
          email: 'carol@example.com',
          password,
        })
      ).statusCode,
    ).toBe(200);
    const stored = await sql<{ key: string }>`select key from rate_events`.execute(identityDb());
    expect(stored.rows.map((r) => r.key).join(' ')).not.toMatch(/carol|198\.51\.100/);
  });

  it('limits failed attempts per address across accounts', async () => {
    const address = '192.0.2.77';
    for (let i = 0; i < 20; i++) {
      const response = await new Client(stack.app, address).call('POST', '/api/auth/login', {
        email: `spray${i}@example.com`,
        password: 'guess guess guess',
      });
      expect(response.statusCode).toBe(401);
    }
    const limited = await new Client(stack.app, address).call('POST', '/api/auth/login', {
      email: 'bob@example.com',
      password,
    });
    expect(limited.statusCode).toBe(429);
    const elsewhere = await new Client(stack.app, '192.0.2.78').call('POST', '/api/auth/login', {
      email: 'bob@example.com',
      password,
    });
    expect(elsewhere.statusCode).toBe(200);
    const stored = await sql<{ key: string }>`select key from rate_events`.execute(identityDb());
    expect(stored.rows.map((r) => r.key).join(' ')).not.toContain('192.0.2.77');
  });
});

/** Counts the newest rate event under `prefix` `times` more times (as if that many more requests had come). */
async function repeatNewestEvent(prefix: string, times: number): Promise<void> {
  await sql`insert into rate_events (key, at)
            select key, now() from (select key from rate_events where key like ${`${prefix}%`} order by seq desc limit 1) newest,
                   generate_series(1, ${times})`.execute(identityDb());
}

describe('sign-up and mail limits', () => {
  it('limits sign-ups per address (20 an hour) before anything is written or mailed', async () => {
    const client = new Client(stack.app, '198.51.100.150');
    expect((await signUp('many0@flood.example', client)).response.statusCode).toBe(201);
    // Eighteen more sign-ups from the same address, counted without paying for eighteen password hashes.
    await repeatNewestEvent('signup:address:', 18);
    expect((await signUp('many19@flood.example', client)).response.statusCode).toBe(201);
    const before = stack.smtp.messages.length;
    const limited = await signUp('many20@flood.example', client);
    expect(limited.response.statusCode).toBe(429);
    expect(limited.response.data.error.code).toBe('rate_limited');
    expect(limited.response.data.error.message).toMatch(
      /^Too many new accounts from here\. Try again in \d+ minutes\.$/,
    );
    expect(limited.response.data.error.details.retry_after_seconds).toBeGreaterThan(3000);
    const users = await sql<{
      n: number;
    }>`select count(*)::int as n from users where email = 'many20@flood.example'`.execute(identityDb());
    expect(users.rows[0]!.n).toBe(0);
    expect((await signUp('elsewhere@example.com', new Client(stack.app, '198.51.100.151'))).response.statusCode).toBe(
      201,
    );
    await stack.smtp.waitFor((m) => (m.to as { text: string }).text.includes('elsewhere@example.com'));
    expect(stack.smtp.messages.slice(before).some((m) => (m.to as { text: string }).text.includes('many20@'))).toBe(
      false,
    );
  });

  it('limits sign-ups per email domain across addresses (it sends mail there); large mail providers get more room', async () => {
    expect((await signUp('staff0@small-company.example')).response.statusCode).toBe(201);
    await repeatNewestEvent('signup:domain:', 48);
    expect((await signUp('staff49@small-company.example')).response.statusCode).toBe(201);
    const limited = await signUp('staff50@small-company.example');
    expect(limited.response.statusCode).toBe(429);
    expect(limited.response.data.error.message).toMatch(
      /^Too many new accounts for this email domain\. Try again in \d+ minutes\.$/,
    );
    expect((await signUp('someone@other-company.example')).response.statusCode).toBe(201);
    const keys = await sql<{ key: string }>`select distinct key from rate_events where key like 'signup:%'`.execute(
      identityDb(),
    );
    expect(keys.rows.map((r) => r.key).join(' ')).not.toMatch(/small-company|example|flood|198\.51|203\.0/);
  });

  it('limits verification resends: one a minute and five an hour per account', async () => {
    const { client } = await signUp('rex@example.com');
    expect((await client.call('POST', '/api/auth/resend-verification')).data).toEqual({ sent: true });
    const soon = await client.call('POST', '/api/auth/resend-verification');
    expect(soon.statusCode).toBe(429);
    expect(soon.data.error.message).toMatch(/^We sent a link a moment ago\. Try again in a minute\.$/);
    expect(soon.data.error.details.retry_after_seconds).toBeLessThanOrEqual(60);
    const account = `verify:account:${callerOf(client).userId}`;
    for (let i = 0; i < 4; i++) {
      await sql`update rate_events set at = at - interval '61 seconds' where key = ${account}`.execute(identityDb());
      expect((await client.call('POST', '/api/auth/resend-verification')).data).toEqual({ sent: true });
    }
    await sql`update rate_events set at = at - interval '61 seconds' where key = ${account}`.execute(identityDb());
    const hourly = await client.call('POST', '/api/auth/resend-verification');
    expect(hourly.statusCode).toBe(429);
    expect(hourly.data.error.message).toMatch(/^We sent several links already\. Try again in \d+ minutes\.$/);
  });

  it('password reset mail: at most five an hour to one account, however many addresses ask, and still 202 for all', async () => {
    await signUp('pam@example.com');
    const resetMails = () =>
      stack.smtp.messages.filter(
        (m) =>
          m.subject === 'Reset your Quietwire password' && (m.to as { text: string }).text.includes('pam@example.com'),
      ).length;
    for (let i = 0; i < 7; i++) {
      const response = await new Client(stack.app, `192.0.2.${100 + i}`).call('POST', '/api/auth/password/forgot', {
        email: 'pam@example.com',
      });
      expect(response.statusCode).toBe(202);
    }
    // Each answer comes after its mail was handed to the mail server.
    expect(resetMails()).toBe(5);
  });
});

describe('sessions', () => {
  it('rotates the refresh token on every use, and a reused one ends the whole session family', async () => {
    const { client } = await signUp('dan@example.com');
    const first = client.cookies.get('qw_refresh')!;
    const refreshed = await client.call('POST', '/api/auth/refresh');
    expect(refreshed.statusCode).toBe(200);
    const second = client.cookies.get('qw_refresh')!;
    expect(second).not.toBe(first);

    const thief = new Client(stack.app);
    thief.cookies.set('qw_refresh', first);
    const reuse = await thief.call('POST', '/api/auth/refresh');
    expect(reuse.statusCode).toBe(401);
    expect(reuse.data.error.code).toBe('invalid_token');
    // The legitimate holder's newer token died with the family.
    const after = await client.call('POST', '/api/auth/refresh');
    expect(after.statusCode).toBe(401);
  });

  it('signs out: the cookie is cleared and its token no longer refreshes', async () => {
    const { client } = await signUp('erin@example.com');
    const token = client.cookies.get('qw_refresh')!;
    const out = await client.call('POST', '/api/auth/logout');
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/qw_refresh=;/);
    const stale = new Client(stack.app);
    stale.cookies.set('qw_refresh', token);
    expect((await stale.call('POST', '/api/auth/refresh')).statusCode).toBe(401);
    // No cookie at all is nobody signed in, not an error (issue #15: no 401 on a signed-out page load).
    const nobody = await new Client(stack.app).call('POST', '/api/auth/refresh');
    expect(nobody.statusCode).toBe(204);
    expect(nobody.body).toBe('');
    expect(nobody.headers['set-cookie']).toBeUndefined();
  });

  it('refuses protected routes without a session and with a forged token', async () => {
    const anonymous = await new Client(stack.app).call('GET', '/api/me');
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.data.error).toEqual({ code: 'not_signed_in', message: 'Not signed in' });
    const forged = new Client(stack.app);
    forged.accessToken = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.bad';
    expect((await forged.call('GET', '/api/me')).data.error.code).toBe('invalid_token');
  });

  it('refuses state-changing requests from another origin', async () => {
    const response = await new Client(stack.app).call(
      'POST',
      '/api/auth/login',
      { email: 'bob@example.com', password },
      { origin: 'http://evil.example' },
    );
    expect(response.statusCode).toBe(403);
    const same = await new Client(stack.app).call(
      'POST',
      '/api/auth/login',
      { email: 'bob@example.com', password },
      { origin: 'http://localhost:8080' },
    );
    expect(same.statusCode).toBe(200);
  });
});

describe('email verification', () => {
  it('verifies with the link once: no session, but a token to choose the password, which then signs the person in', async () => {
    const { client } = await signUp('fay@example.com');
    const mail = await stack.smtp.waitFor((m) => (m.to as { text: string }).text.includes('fay@example.com'));
    const token = linkToken(mail.text!, '/auth/callback');
    const opener = new Client(stack.app);
    const verified = await opener.call('POST', '/api/auth/verify', { token });
    expect(verified.statusCode).toBe(200);
    expect(verified.headers['set-cookie']).toBeUndefined();
    expect(verified.headers['cache-control']).toBe('no-store');
    expect(verified.data).toEqual({
      step: 'choose_password',
      set_password_token: expect.stringMatching(/^[\w-]{43}$/),
      email: 'fay@example.com',
      expires_in: 900,
    });
    const again = await new Client(stack.app).call('POST', '/api/auth/verify', { token });
    expect(again.statusCode).toBe(410);
    // Spent, not expired: its own code and words (issue #15).
    expect(again.data.error).toEqual({
      code: 'link_used',
      message: 'This verification link has already been used. Sign in, or request a new link.',
    });

    const set = await opener.call('POST', '/api/auth/password/set', {
      token: verified.data.set_password_token,
      password: 'the owner chose this',
    });
    expect(set.statusCode).toBe(200);
    expect(set.data.user).toMatchObject({ email: 'fay@example.com', email_verified: true });
    expect(String(set.headers['set-cookie'])).toMatch(/qw_refresh=[\w-]+/);
    expect((await opener.call('GET', '/api/me')).data.email_verified).toBe(true);
    // The sign-up's own session ended with the verification.
    expect((await client.call('POST', '/api/auth/refresh')).statusCode).toBe(401);
    const reused = await new Client(stack.app).call('POST', '/api/auth/password/set', {
      token: verified.data.set_password_token,
      password: 'someone else again',
    });
    expect(reused.statusCode).toBe(410);
  });

  it('opened in the browser that signed up (its session sent along), the link confirms the address at once and signs nobody out', async () => {
    const { client } = await signUp('gil@example.com');
    const mail = await stack.smtp.waitFor((m) => (m.to as { text: string }).text.includes('gil@example.com'));
    const token = linkToken(mail.text!, '/auth/callback');
    expect((await client.call('GET', '/api/me')).data.email_verified).toBe(false);
    const verified = await client.call('POST', '/api/auth/verify', { token });
    expect(verified.statusCode).toBe(200);
    expect(verified.data).toEqual({ step: 'verified', email: 'gil@example.com' });
    // The same session goes on, and already knows the address is confirmed.
    expect((await client.call('GET', '/api/me')).data.email_verified).toBe(true);
    const refreshed = await client.call('POST', '/api/auth/refresh');
    expect(refreshed.statusCode).toBe(200);
    expect(refreshed.data.user.email_verified).toBe(true);
    expect((await client.call('POST', '/api/auth/verify', { token })).data.error.code).toBe('link_used');
  });

  it("pre-hijacking: whoever signed up with another person's address loses the account when its owner verifies it", async () => {
    const attacker = (await signUp('victim@example.com', new Client(stack.app, '198.51.100.200'))).client;
    const attackerPassword = password;
    // The owner opens the link: the attacker's session ends at once, and nobody is signed in yet.
    const mail = await stack.smtp.waitFor((m) => (m.to as { text: string }).text.includes('victim@example.com'));
    const owner = new Client(stack.app, '192.0.2.150');
    const verified = await owner.call('POST', '/api/auth/verify', { token: linkToken(mail.text!, '/auth/callback') });
    expect(verified.statusCode).toBe(200);
    expect(owner.accessToken).toBeUndefined();
    expect((await attacker.call('POST', '/api/auth/refresh')).statusCode).toBe(401);
    // Until the owner has chosen a password the address is not verified, whatever the attacker does.
    const attackerLater = new Client(stack.app, '198.51.100.201');
    const early = await attackerLater.call('POST', '/api/auth/login', {
      email: 'victim@example.com',
      password: attackerPassword,
    });
    expect(early.data.user.email_verified).toBe(false);

    const weak = await owner.call('POST', '/api/auth/password/set', {
      token: verified.data.set_password_token,
      password: 'short',
    });
    expect(weak.statusCode).toBe(422);
    expect(weak.data.error).toEqual({
      code: 'weak_password',
      message: 'Password must be at least 10 characters.',
      details: { field: 'password' },
    });
    const chosen = await owner.call('POST', '/api/auth/password/set', {
      token: verified.data.set_password_token,
      password: 'the real owner now',
    });
    expect(chosen.statusCode).toBe(200);
    expect(chosen.data.user.email_verified).toBe(true);

    // The session the attacker opened in between has ended too, and their password no longer works.
    expect((await attackerLater.call('POST', '/api/auth/refresh')).statusCode).toBe(401);
    expect(
      (
        await new Client(stack.app, '198.51.100.204').call('POST', '/api/auth/login', {
          email: 'victim@example.com',
          password: attackerPassword,
        })
      ).statusCode,
    ).toBe(401);
    expect(
      (
        await new Client(stack.app, '192.0.2.151').call('POST', '/api/auth/login', {
          email: 'victim@example.com',
          password: 'the real owner now',
        })
      ).statusCode,
    ).toBe(200);
  });

  it('refuses a set-password token that has expired or is unknown', async () => {
    await signUp('ula@example.com');
    const mail = await stack.smtp.waitFor((m) => (m.to as { text: string }).text.includes('ula@example.com'));
    const verified = await new Client(stack.app).call('POST', '/api/auth/verify', {
      token: linkToken(mail.text!, '/auth/callback'),
    });
    await sql`update email_tokens set expires_at = now() - interval '1 second' where purpose = 'set_password' and user_id = (select id from users where email = 'ula@example.com')`.execute(
      identityDb(),
    );
    const expired = await new Client(stack.app).call('POST', '/api/auth/password/set', {
      token: verified.data.set_password_token,
      password: 'a fine passphrase',
    });
    expect(expired.statusCode).toBe(410);
    expect(expired.data.error.code).toBe('link_expired');
    const unknown = await new Client(stack.app).call('POST', '/api/auth/password/set', {
      token: 'nope',
      password: 'a fine passphrase',
    });
    expect(unknown.statusCode).toBe(404);
    const user = await sql<{
      v: Date | null;
    }>`select email_verified_at as v from users where email = 'ula@example.com'`.execute(identityDb());
    expect(user.rows[0]!.v).toBeNull();
  });

  it('a verification link of an address a password reset already proved signs nobody in', async () => {
    await signUp('val@example.com');
    const mail = await stack.smtp.waitFor(
      (m) =>
        (m.to as { text: string }).text.includes('val@example.com') && m.subject === 'Confirm your email for Quietwire',
    );
    await new Client(stack.app, '192.0.2.160').call('POST', '/api/auth/password/forgot', { email: 'val@example.com' });
    const reset = await stack.smtp.waitFor(
      (m) =>
        (m.to as { text: string }).text.includes('val@example.com') && m.subject === 'Reset your Quietwire password',
    );
    const done = await new Client(stack.app).call('POST', '/api/auth/password/reset', {
      token: linkToken(reset.text!, '/reset-password'),
      password: 'reset by the owner',
    });
    expect(done.statusCode).toBe(204);
    const late = await new Client(stack.app).call('POST', '/api/auth/verify', {
      token: linkToken(mail.text!, '/auth/callback'),
    });
    expect(late.statusCode).toBe(410);
    expect(late.data.set_password_token).toBeUndefined();
  });

  it('refuses an expired link with the spec text and an unknown one with 404', async () => {
    await signUp('gus@example.com');
    const mail = await stack.smtp.waitFor((m) => (m.to as { text: string }).text.includes('gus@example.com'));
    const token = linkToken(mail.text!, '/auth/callback');
    await sql`update email_tokens set expires_at = now() - interval '1 second' where purpose = 'verify_email' and user_id = (select id from users where email = 'gus@example.com')`.execute(
      identityDb(),
    );
    const expired = await new Client(stack.app).call('POST', '/api/auth/verify', { token });
    expect(expired.statusCode).toBe(410);
    expect(expired.data.error.message).toBe('Your email verification link has expired. Please request a new one.');
    const unknown = await new Client(stack.app).call('POST', '/api/auth/verify', { token: 'nope' });
    expect(unknown.statusCode).toBe(404);
    const user = await sql<{
      v: Date | null;
    }>`select email_verified_at as v from users where email = 'gus@example.com'`.execute(identityDb());
    expect(user.rows[0]!.v).toBeNull();
  });

  it('sends a new link to the signed-in person only, and the new link replaces the old', async () => {
    expect((await new Client(stack.app).call('POST', '/api/auth/resend-verification')).statusCode).toBe(401);
    const { client } = await signUp('hal@example.com');
    const firstMail = await stack.smtp.waitFor((m) => (m.to as { text: string }).text.includes('hal@example.com'));
    const oldToken = linkToken(firstMail.text!, '/auth/callback');
    const resent = await client.call('POST', '/api/auth/resend-verification');
    expect(resent.data).toEqual({ sent: true });
    const secondMail = await stack.smtp.waitFor(
      (m) => (m.to as { text: string }).text.includes('hal@example.com') && !m.text!.includes(oldToken),
    );
    expect((await new Client(stack.app).call('POST', '/api/auth/verify', { token: oldToken })).statusCode).toBe(410);
    expect(
      (
        await new Client(stack.app).call('POST', '/api/auth/verify', {
          token: linkToken(secondMail.text!, '/auth/callback'),
        })
      ).statusCode,
    ).toBe(200);
  });
});

describe('password reset', () => {
  it('answers the same for unknown addresses and mails nothing', async () => {
    await signUp('known@example.com');
    const before = stack.smtp.messages.length;
    const response = await new Client(stack.app, '192.0.2.200').call('POST', '/api/auth/password/forgot', {
      email: 'ghost@example.com',
    });
    expect(response.statusCode).toBe(202);
    // A request for a known account made after it is mailed; once that mail is here, nothing came before it.
    const known = await new Client(stack.app, '192.0.2.199').call('POST', '/api/auth/password/forgot', {
      email: 'known@example.com',
    });
    expect(known.statusCode).toBe(202);
    expect(known.body).toBe(response.body);
    await stack.smtp.waitFor(
      (m) => m.subject === 'Reset your Quietwire password' && (m.to as { text: string }).text.includes('known@'),
    );
    const resets = stack.smtp.messages.slice(before).filter((m) => m.subject === 'Reset your Quietwire password');
    expect(resets.map((m) => (m.to as { text: string }).text)).toEqual(['known@example.com']);
  });

  it('resets once with the emailed link, ends every session, and refuses the link after use or expiry', async () => {
    const { client } = await signUp('ivy@example.com');
    await new Client(stack.app, '192.0.2.201').call('POST', '/api/auth/password/forgot', { email: 'ivy@example.com' });
    const mail = await stack.smtp.waitFor(
      (m) =>
        m.subject === 'Reset your Quietwire password' && (m.to as { text: string }).text.includes('ivy@example.com'),
    );
    const token = linkToken(mail.text!, '/reset-password');

    const weak = await new Client(stack.app).call('POST', '/api/auth/password/reset', { token, password: 'short' });
    expect(weak.statusCode).toBe(422);
    const done = await new Client(stack.app).call('POST', '/api/auth/password/reset', {
      token,
      password: 'a brand new passphrase',
    });
    expect(done.statusCode).toBe(204);
    const reused = await new Client(stack.app).call('POST', '/api/auth/password/reset', {
      token,
      password: 'another new passphrase',
    });
    expect(reused.statusCode).toBe(410);

    expect((await client.call('POST', '/api/auth/refresh')).statusCode).toBe(401);
    expect(
      (
        await new Client(stack.app, '192.0.2.202').call('POST', '/api/auth/login', {
          email: 'ivy@example.com',
          password,
        })
      ).statusCode,
    ).toBe(401);
    expect(
      (
        await new Client(stack.app, '192.0.2.203').call('POST', '/api/auth/login', {
          email: 'ivy@example.com',
          password: 'a brand new passphrase',
        })
      ).statusCode,
    ).toBe(200);

    await new Client(stack.app, '192.0.2.204').call('POST', '/api/auth/password/forgot', { email: 'ivy@example.com' });
    const second = await stack.smtp.waitFor(
      (m) =>
        m.subject === 'Reset your Quietwire password' &&
        (m.to as { text: string }).text.includes('ivy@example.com') &&
        !m.text!.includes(token),
    );
    await sql`update email_tokens set expires_at = now() - interval '1 second' where purpose = 'reset_password'`.execute(
      identityDb(),
    );
    const expired = await new Client(stack.app).call('POST', '/api/auth/password/reset', {
      token: linkToken(second.text!, '/reset-password'),
      password: 'yet another passphrase',
    });
    expect(expired.statusCode).toBe(410);
    expect(expired.data.error.message).toBe('This reset link has expired. Request a new one.');
  });
});

describe('profile', () => {
  it('saves Full name and Avatar URL, and refuses bad values without changing anything', async () => {
    const { client } = await signUp('jo@example.com');
    const saved = await client.call('PATCH', '/api/me/profile', {
      full_name: '  Jo March ',
      avatar_url: 'https://images.example.com/jo.png',
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.data).toMatchObject({ full_name: 'Jo March', avatar_url: 'https://images.example.com/jo.png' });

    const long = await client.call('PATCH', '/api/me/profile', { full_name: 'x'.repeat(101) });
    expect(long.statusCode).toBe(400);
    expect(long.data.error.message).toBe('Full name can be at most 100 characters.');
    const http = await client.call('PATCH', '/api/me/profile', { avatar_url: 'http://images.example.com/jo.png' });
    expect(http.data.error.message).toBe('Avatar URL must be an https:// address.');
    const huge = await client.call('PATCH', '/api/me/profile', {
      avatar_url: `https://example.com/${'a'.repeat(2040)}`,
    });
    expect(huge.data.error.message).toBe('Avatar URL can be at most 2,048 characters.');

    const me = await client.call('GET', '/api/me');
    expect(me.data.profile).toMatchObject({ full_name: 'Jo March', avatar_url: 'https://images.example.com/jo.png' });
  });
});

/** The caller the gateway makes of this client's access token. */
/** The caller the gateway would assert for this client's access token (signed, as services require). */
function callerOf(client: Client): Caller {
  const claims = JSON.parse(Buffer.from(client.accessToken!.split('.')[1]!, 'base64url').toString());
  return callerTokenSigner(testCallerKeys.privateKey)({
    userId: claims.sub,
    accountType: claims.acct,
    isAdmin: claims.adm,
    emailVerified: claims.ver,
  });
}

/** Identity's own answer for a caller, asked on the operator's connection (no route of the gateway asks it). */
async function adminStatus(client: Client, claims: { isAdmin?: boolean } = {}): Promise<boolean> {
  const rpc = new RpcClient(await stack.connectAdmin(), 5_000);
  return (await rpc.request(adminStatusRpc, {}, { ...callerOf(client), ...claims })).is_admin;
}

describe('roles', () => {
  it('an address on the admin list (any case) is no admin until its owner has verified it; x-admin-email is ignored', async () => {
    const early = await signUp('ops@quietwire.test', new Client(stack.app, '192.0.2.170'));
    expect(early.response.data.user).toMatchObject({ role: 'client', is_admin: false, email_verified: false });
    expect((await early.client.call('GET', '/api/me')).data).toMatchObject({ role: 'client', is_admin: false });
    expect(await adminStatus(early.client)).toBe(false);

    const owner = await confirmEmail(stack, 'ops@quietwire.test', 'the admin passphrase');
    expect((await owner.call('GET', '/api/me')).data).toMatchObject({ role: 'admin', is_admin: true });
    expect(await adminStatus(owner)).toBe(true);

    const { client } = await signUp('kim@example.com');
    const me = await client.call('GET', '/api/me', undefined, { 'x-admin-email': 'ops@quietwire.test' });
    expect(me.data).toMatchObject({ role: 'client', is_admin: false });
    expect(await adminStatus(client)).toBe(false);
    // A caller frame that claims admin for a person who is not one gets no rights.
    expect(await adminStatus(client, { isAdmin: true })).toBe(false);
  });

  it('uses the profile role when set; only the admin list names an admin, and only for a verified address', async () => {
    const { client } = await signUp('lee@example.com');
    await sql`update profiles set role = 'support' where email = 'lee@example.com'`.execute(identityDb());
    expect((await client.call('GET', '/api/me')).data).toMatchObject({ role: 'support', is_admin: false });
    await sql`update profiles set role = null, account_type = 'admin' where email = 'lee@example.com'`.execute(
      identityDb(),
    );
    await client.call('POST', '/api/auth/refresh');
    expect((await client.call('GET', '/api/me')).data).toMatchObject({ role: 'client', is_admin: false });
    const lee = await confirmEmail(stack, 'lee@example.com', password);
    // Account type (or profile role) admin names nobody: the admin list is the one source (issue #13).
    expect((await lee.call('GET', '/api/me')).data).toMatchObject({ role: 'client', is_admin: false });
    await sql`update profiles set role = 'admin' where email = 'lee@example.com'`.execute(identityDb());
    await lee.call('POST', '/api/auth/refresh');
    expect((await lee.call('GET', '/api/me')).data).toMatchObject({ role: 'client', is_admin: false });

    await sql`insert into admin_emails (email, is_admin, role) values ('mo@example.com', false, 'admin')`.execute(
      identityDb(),
    );
    const mo = await signUp('mo@example.com');
    expect(mo.response.data.user).toMatchObject({ role: 'client', is_admin: false });
    expect((await confirmEmail(stack, 'mo@example.com', password)).accessToken).toBeDefined();
    const moAgain = await new Client(stack.app, '192.0.2.171').call('POST', '/api/auth/login', {
      email: 'mo@example.com',
      password,
    });
    expect(moAgain.data.user).toMatchObject({ role: 'admin', is_admin: true });

    await sql`insert into admin_emails (email, is_admin, role) values ('ned@example.com', false, 'viewer')`.execute(
      identityDb(),
    );
    await signUp('ned@example.com');
    const ned = await confirmEmail(stack, 'ned@example.com', password);
    expect((await ned.call('GET', '/api/me')).data).toMatchObject({ role: 'client', is_admin: false });
  });

  it('an address taken off ADMIN_EMAILS loses the rights at the next start; rows operators added stay', async () => {
    await sql`insert into admin_emails (email, is_admin, role, source) values ('ros@example.com', true, 'admin', 'operator')`.execute(
      identityDb(),
    );
    await signUp('ros@example.com');
    const ros = await confirmEmail(stack, 'ros@example.com', password);
    const ops = new Client(stack.app, '192.0.2.172');
    await ops.call('POST', '/api/auth/login', { email: 'ops@quietwire.test', password: 'the admin passphrase' });
    expect(await adminStatus(ops)).toBe(true);

    // Another identity process starts with a list that no longer names ops@quietwire.test.
    const restarted = await launchService(
      identityService({
        PUBLIC_URL: stack.publicUrl,
        SUPPORT_EMAIL: 'support@quietwire.test',
        ADMIN_EMAILS: 'new-admin@quietwire.test',
        MAIL_URL: stack.smtp.url,
        MAIL_FROM: 'Quietwire <no-reply@quietwire.test>',
        MAIL_DIR: 'var/mail-test',
      }),
      { database: stack.database, bus: stack.testBus },
    );
    await restarted.stop();
    expect(await adminStatus(ops)).toBe(false);
    expect((await ops.call('GET', '/api/me')).data).toMatchObject({ role: 'client', is_admin: false });
    expect((await ops.call('POST', '/api/auth/refresh')).data.user).toMatchObject({ is_admin: false });
    expect(await adminStatus(ros)).toBe(true);
    const rows = await sql<{
      email: string;
      is_admin: boolean;
      source: string;
    }>`select email, is_admin, source from admin_emails where email in ('ops@quietwire.test', 'ros@example.com', 'new-admin@quietwire.test') order by email`.execute(
      identityDb(),
    );
    expect(rows.rows).toEqual([
      { email: 'new-admin@quietwire.test', is_admin: true, source: 'environment' },
      { email: 'ops@quietwire.test', is_admin: false, source: 'environment' },
      { email: 'ros@example.com', is_admin: true, source: 'operator' },
    ]);
  });
});
