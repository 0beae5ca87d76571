import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { Client, linkToken, startStack, type Stack } from './support/stack.ts';

let stack: Stack;
const password = 'correct horse battery';

beforeAll(async () => {
  stack = await startStack({ label: 'auth', adminEmails: ['Ops@Quietwire.test'] });
});
afterAll(async () => {
  await stack?.stop();
});

async function signUp(email: string, client = new Client(stack.app)) {
  const response = await client.call('POST', '/api/auth/signup', { email, password });
  return { client, response };
}

const identityDb = () => stack.services.identity!.db;

describe('sign-up', () => {
  it('creates the account, answers a session with the refresh token in a strict httpOnly cookie, and mails a verification link', async () => {
    const { client, response } = await signUp('Ada@Example.com');
    expect(response.statusCode).toBe(201);
    expect(response.data.token_type).toBe('bearer');
    expect(response.data.user).toMatchObject({ email: 'ada@example.com', account_type: 'personal', role: 'client', is_admin: false, email_verified: false });
    const setCookie = String(response.headers['set-cookie']);
    expect(setCookie).toMatch(/qw_refresh=[\w-]+/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).toMatch(/Path=\/api\/auth/);
    expect(response.headers['cache-control']).toBe('no-store');

    const me = await client.call('GET', '/api/me');
    expect(me.statusCode).toBe(200);
    expect(me.data).toMatchObject({ role: 'client', is_admin: false, email_verified: false, mfa_enabled: false, org_member: false });
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
    const users = await sql<{ n: number }>`select count(*)::int as n from users where email = 'ada@example.com'`.execute(identityDb());
    expect(users.rows[0]!.n).toBe(1);
  });

  it('refuses weak passwords and bad addresses with a clear message, writing nothing', async () => {
    const short = await new Client(stack.app).call('POST', '/api/auth/signup', { email: 'weak@example.com', password: 'short' });
    expect(short.statusCode).toBe(422);
    expect(short.data.error).toEqual({ code: 'weak_password', message: 'Password must be at least 10 characters.', details: { field: 'password' } });
    const common = await new Client(stack.app).call('POST', '/api/auth/signup', { email: 'weak@example.com', password: 'password123' });
    expect(common.data.error.message).toBe('This password is too common. Choose a less predictable one.');
    const bad = await new Client(stack.app).call('POST', '/api/auth/signup', { email: 'not-an-address', password });
    expect(bad.statusCode).toBe(400);
    expect(bad.data.error.message).toBe('Enter a valid email address.');
    const missing = await new Client(stack.app).call('POST', '/api/auth/signup', { email: 'x@example.com' });
    expect(missing.statusCode).toBe(400);
    expect(missing.data.error.code).toBe('validation_failed');
    const users = await sql<{ n: number }>`select count(*)::int as n from users where email in ('weak@example.com', 'not-an-address', 'x@example.com')`.execute(identityDb());
    expect(users.rows[0]!.n).toBe(0);
  });
});

describe('sign-in', () => {
  it('signs in with the right password and says nothing about which part was wrong otherwise', async () => {
    await signUp('bob@example.com');
    const ok = await new Client(stack.app).call('POST', '/api/auth/login', { email: ' BOB@example.com ', password });
    expect(ok.statusCode).toBe(200);
    expect(ok.data.user.email).toBe('bob@example.com');
    const wrong = await new Client(stack.app).call('POST', '/api/auth/login', { email: 'bob@example.com', password: 'wrong password here' });
    const unknown = await new Client(stack.app).call('POST', '/api/auth/login', { email: 'nobody@example.com', password });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.data).toEqual(unknown.data);
    expect(wrong.data.error).toEqual({ code: 'invalid_credentials', message: 'Invalid email or password.' });
  });

  it('limits failed attempts per account: the sixth try within 15 minutes gets 429 with a retry time, even with the right password', async () => {
    await signUp('carol@example.com');
    for (let i = 0; i < 5; i++) {
      const response = await new Client(stack.app, `198.51.100.${i + 1}`).call('POST', '/api/auth/login', { email: 'carol@example.com', password: 'not the password' });
      expect(response.statusCode).toBe(401);
    }
    const limited = await new Client(stack.app, '198.51.100.99').call('POST', '/api/auth/login', { email: 'carol@example.com', password });
    expect(limited.statusCode).toBe(429);
    expect(limited.data.error.code).toBe('rate_limited');
    expect(limited.data.error.message).toMatch(/^Too many sign-in attempts\. Try again in \d+ minutes\.$/);
    expect(limited.data.error.details.retry_after_seconds).toBeGreaterThan(800);
  });

  it('limits failed attempts per address across accounts', async () => {
    const address = '192.0.2.77';
    for (let i = 0; i < 20; i++) {
      const response = await new Client(stack.app, address).call('POST', '/api/auth/login', { email: `spray${i}@example.com`, password: 'guess guess guess' });
      expect(response.statusCode).toBe(401);
    }
    const limited = await new Client(stack.app, address).call('POST', '/api/auth/login', { email: 'bob@example.com', password });
    expect(limited.statusCode).toBe(429);
    const elsewhere = await new Client(stack.app, '192.0.2.78').call('POST', '/api/auth/login', { email: 'bob@example.com', password });
    expect(elsewhere.statusCode).toBe(200);
    const stored = await sql<{ key: string }>`select key from rate_events`.execute(identityDb());
    expect(stored.rows.map((r) => r.key).join(' ')).not.toContain('192.0.2.77');
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
    expect((await new Client(stack.app).call('POST', '/api/auth/refresh')).data.error).toEqual({ code: 'invalid_token', message: 'No session found.' });
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
    const response = await new Client(stack.app).call('POST', '/api/auth/login', { email: 'bob@example.com', password }, { origin: 'http://evil.example' });
    expect(response.statusCode).toBe(403);
    const same = await new Client(stack.app).call('POST', '/api/auth/login', { email: 'bob@example.com', password }, { origin: 'http://localhost:8080' });
    expect(same.statusCode).toBe(200);
  });
});

describe('email verification', () => {
  it('verifies with the link once, signs the person in, and refuses the link a second time', async () => {
    const { client } = await signUp('fay@example.com');
    const mail = await stack.smtp.waitFor((m) => (m.to as { text: string }).text.includes('fay@example.com'));
    const token = linkToken(mail.text!, '/auth/callback');
    const verified = await new Client(stack.app).call('POST', '/api/auth/verify', { token });
    expect(verified.statusCode).toBe(200);
    expect(verified.data.user.email_verified).toBe(true);
    const again = await new Client(stack.app).call('POST', '/api/auth/verify', { token });
    expect(again.statusCode).toBe(410);
    expect(again.data.error.code).toBe('link_expired');
    await client.call('POST', '/api/auth/refresh');
    expect((await client.call('GET', '/api/me')).data.email_verified).toBe(true);
  });

  it('refuses an expired link with the spec text and an unknown one with 404', async () => {
    await signUp('gus@example.com');
    const mail = await stack.smtp.waitFor((m) => (m.to as { text: string }).text.includes('gus@example.com'));
    const token = linkToken(mail.text!, '/auth/callback');
    await sql`update email_tokens set expires_at = now() - interval '1 second' where purpose = 'verify_email' and user_id = (select id from users where email = 'gus@example.com')`.execute(identityDb());
    const expired = await new Client(stack.app).call('POST', '/api/auth/verify', { token });
    expect(expired.statusCode).toBe(410);
    expect(expired.data.error.message).toBe('Your email verification link has expired. Please request a new one.');
    const unknown = await new Client(stack.app).call('POST', '/api/auth/verify', { token: 'nope' });
    expect(unknown.statusCode).toBe(404);
    const user = await sql<{ v: Date | null }>`select email_verified_at as v from users where email = 'gus@example.com'`.execute(identityDb());
    expect(user.rows[0]!.v).toBeNull();
  });

  it('sends a new link to the signed-in person only, and the new link replaces the old', async () => {
    expect((await new Client(stack.app).call('POST', '/api/auth/resend-verification')).statusCode).toBe(401);
    const { client } = await signUp('hal@example.com');
    const firstMail = await stack.smtp.waitFor((m) => (m.to as { text: string }).text.includes('hal@example.com'));
    const oldToken = linkToken(firstMail.text!, '/auth/callback');
    const resent = await client.call('POST', '/api/auth/resend-verification');
    expect(resent.data).toEqual({ sent: true });
    const secondMail = await stack.smtp.waitFor((m) => (m.to as { text: string }).text.includes('hal@example.com') && !m.text!.includes(oldToken));
    expect((await new Client(stack.app).call('POST', '/api/auth/verify', { token: oldToken })).statusCode).toBe(410);
    expect((await new Client(stack.app).call('POST', '/api/auth/verify', { token: linkToken(secondMail.text!, '/auth/callback') })).statusCode).toBe(200);
  });
});

describe('password reset', () => {
  it('answers the same for unknown addresses and mails nothing', async () => {
    const before = stack.smtp.messages.length;
    const response = await new Client(stack.app, '192.0.2.200').call('POST', '/api/auth/password/forgot', { email: 'ghost@example.com' });
    expect(response.statusCode).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stack.smtp.messages.length).toBe(before);
  });

  it('resets once with the emailed link, ends every session, and refuses the link after use or expiry', async () => {
    const { client } = await signUp('ivy@example.com');
    await new Client(stack.app, '192.0.2.201').call('POST', '/api/auth/password/forgot', { email: 'ivy@example.com' });
    const mail = await stack.smtp.waitFor((m) => m.subject === 'Reset your Quietwire password' && (m.to as { text: string }).text.includes('ivy@example.com'));
    const token = linkToken(mail.text!, '/reset-password');

    const weak = await new Client(stack.app).call('POST', '/api/auth/password/reset', { token, password: 'short' });
    expect(weak.statusCode).toBe(422);
    const done = await new Client(stack.app).call('POST', '/api/auth/password/reset', { token, password: 'a brand new passphrase' });
    expect(done.statusCode).toBe(204);
    const reused = await new Client(stack.app).call('POST', '/api/auth/password/reset', { token, password: 'another new passphrase' });
    expect(reused.statusCode).toBe(410);

    expect((await client.call('POST', '/api/auth/refresh')).statusCode).toBe(401);
    expect((await new Client(stack.app, '192.0.2.202').call('POST', '/api/auth/login', { email: 'ivy@example.com', password })).statusCode).toBe(401);
    expect((await new Client(stack.app, '192.0.2.203').call('POST', '/api/auth/login', { email: 'ivy@example.com', password: 'a brand new passphrase' })).statusCode).toBe(200);

    await new Client(stack.app, '192.0.2.204').call('POST', '/api/auth/password/forgot', { email: 'ivy@example.com' });
    const second = await stack.smtp.waitFor((m) => m.subject === 'Reset your Quietwire password' && (m.to as { text: string }).text.includes('ivy@example.com') && !m.text!.includes(token));
    await sql`update email_tokens set expires_at = now() - interval '1 second' where purpose = 'reset_password'`.execute(identityDb());
    const expired = await new Client(stack.app).call('POST', '/api/auth/password/reset', { token: linkToken(second.text!, '/reset-password'), password: 'yet another passphrase' });
    expect(expired.statusCode).toBe(410);
    expect(expired.data.error.message).toBe('This reset link has expired. Request a new one.');
  });
});

describe('profile', () => {
  it('saves Full name and Avatar URL, and refuses bad values without changing anything', async () => {
    const { client } = await signUp('jo@example.com');
    const saved = await client.call('PATCH', '/api/me/profile', { full_name: '  Jo March ', avatar_url: 'https://images.example.com/jo.png' });
    expect(saved.statusCode).toBe(200);
    expect(saved.data).toMatchObject({ full_name: 'Jo March', avatar_url: 'https://images.example.com/jo.png' });

    const long = await client.call('PATCH', '/api/me/profile', { full_name: 'x'.repeat(101) });
    expect(long.statusCode).toBe(400);
    expect(long.data.error.message).toBe('Full name can be at most 100 characters.');
    const http = await client.call('PATCH', '/api/me/profile', { avatar_url: 'http://images.example.com/jo.png' });
    expect(http.data.error.message).toBe('Avatar URL must be an https:// address.');
    const huge = await client.call('PATCH', '/api/me/profile', { avatar_url: `https://example.com/${'a'.repeat(2040)}` });
    expect(huge.data.error.message).toBe('Avatar URL can be at most 2,048 characters.');

    const me = await client.call('GET', '/api/me');
    expect(me.data.profile).toMatchObject({ full_name: 'Jo March', avatar_url: 'https://images.example.com/jo.png' });
  });
});

describe('roles', () => {
  it('makes an admin-list email an admin (case-insensitive) and ignores any x-admin-email header', async () => {
    const admin = await signUp('ops@quietwire.test');
    expect(admin.response.data.user).toMatchObject({ role: 'admin', is_admin: true });
    const { client } = await signUp('kim@example.com');
    const me = await client.call('GET', '/api/me', undefined, { 'x-admin-email': 'ops@quietwire.test' });
    expect(me.data).toMatchObject({ role: 'client', is_admin: false });
  });

  it('uses the profile role when set, and account type admin makes an admin', async () => {
    const { client } = await signUp('lee@example.com');
    await sql`update profiles set role = 'support' where email = 'lee@example.com'`.execute(identityDb());
    expect((await client.call('GET', '/api/me')).data).toMatchObject({ role: 'support', is_admin: false });
    await sql`update profiles set role = null, account_type = 'admin' where email = 'lee@example.com'`.execute(identityDb());
    expect((await client.call('GET', '/api/me')).data).toMatchObject({ role: 'client', is_admin: true });
    await sql`insert into admin_emails (email, is_admin, role) values ('mo@example.com', false, 'admin')`.execute(identityDb());
    const mo = await signUp('mo@example.com');
    expect(mo.response.data.user).toMatchObject({ role: 'admin', is_admin: true });
    await sql`insert into admin_emails (email, is_admin, role) values ('ned@example.com', false, 'viewer')`.execute(identityDb());
    const ned = await signUp('ned@example.com');
    expect(ned.response.data.user).toMatchObject({ role: 'client', is_admin: false });
  });
});
