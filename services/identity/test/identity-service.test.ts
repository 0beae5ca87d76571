import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminDirectoryRpc,
  adminFindUsersRpc,
  adminPeopleCountsRpc,
  authorityRpc,
  billingEvents,
  type EventContract,
  listMyOrgsRpc,
  mailAddressRpc,
  mfaConfirmRpc,
  mfaDisableRpc,
  mfaEnrolRpc,
  organizationStatusChanged,
  purchaseClaimed,
  refreshRpc,
  setPasswordRpc,
  signInMfaRpc,
  signInRpc,
  signOutRpc,
  signUpRpc,
  subscriptionActivated,
  subscriptionCanceled,
  userRegistered,
  userVerified,
  verifyEmailRpc,
} from '@qw/contracts';
import { callerTokenSigner, RpcClient } from '@qw/platform';
import {
  eventually,
  type ServiceAlone,
  type SmtpCapture,
  startServiceAlone,
  startSmtpCapture,
  testCallerKeys,
} from '@qw/testkit';
import { generate } from 'otplib';
import type { Static } from 'typebox';
import { identityService } from '../src/app.ts';

/**
 * Identity on its own, as it runs: a database and a NATS server of this file (the product's
 * permissions on), an SMTP server that keeps what it receives, its RPCs asked as the gateway asks
 * them and billing's events published on billing's stream for its consumers. The flows through
 * the HTTP API (cookies, statuses, the spec's texts on pages) stay in services/gateway/test.
 */
let alone: ServiceAlone;
let smtp: SmtpCapture;
let rpc: RpcClient;
const sign = callerTokenSigner(testCallerKeys.privateKey);
const password = 'correct horse battery';

/** The newest event of that subject on identity's stream that names this user. */
async function announced(contract: EventContract, userId: string) {
  return eventually(async () => {
    const envelope = await alone.lastEvent<{ userId?: string }>(contract);
    return envelope?.data.userId === userId ? envelope : undefined;
  });
}

/** The token of the newest link mailed to `email` whose path is `path`. */
async function mailedToken(email: string, path: string): Promise<string> {
  const mail = await smtp.waitFor(
    (message) => message.text?.includes(path) === true && JSON.stringify(message.to).includes(email),
  );
  const token = mail.text?.match(/[?&]token=([A-Za-z0-9_-]+)/)?.[1];
  if (!token) throw new Error(`no token in the mail to ${email}`);
  return token;
}

/** Opens the mailed verification link where nobody of the account is signed in: the password step. */
async function passwordStep(email: string) {
  const grant = await rpc.request(verifyEmailRpc, { token: await mailedToken(email, '/auth/callback') });
  if (grant.step !== 'choose_password') throw new Error(`expected the password step, got ${grant.step}`);
  return grant;
}

const signUp = (email: string) => rpc.request(signUpRpc, { email, password, address_key: `test-${randomUUID()}` });

beforeAll(async () => {
  // Billing's stream, as billing declares it at its start: identity's consumers read it.
  alone = await startServiceAlone('identity-service', { billing: billingEvents });
  smtp = await startSmtpCapture();
  await alone.launch(
    identityService({
      PUBLIC_URL: 'http://localhost:8080',
      SUPPORT_EMAIL: 'support@quietwire.test',
      ADMIN_EMAILS: '',
      MAIL_URL: smtp.url,
      MAIL_FROM: 'Quietwire <no-reply@quietwire.test>',
      MAIL_DIR: 'var/mail-test',
      NODE_ENV: 'test',
    }),
  );
  rpc = new RpcClient(await alone.connect('gateway'));
}, 120_000);

afterAll(async () => {
  await alone?.stop();
  await smtp?.close();
});

describe('sign-up, the mailed link and the password step (identity.rpc.*)', () => {
  it('sign-up answers a session and announces the account; the link’s step ends that session and verifies', async () => {
    const email = `ada-${randomUUID().slice(0, 8)}@example.com`;
    const signedUp = await signUp(email);
    expect(signedUp.user).toMatchObject({ email, email_verified: false, is_admin: false });
    const userId = signedUp.user.id;
    expect((await announced(userRegistered, userId)).data).toMatchObject({ userId, accountType: 'personal' });
    await expect(signUp(email.toUpperCase())).rejects.toMatchObject({ code: 'already_exists' });

    const grant = await passwordStep(email);
    expect(grant).toMatchObject({ email, expires_in: 15 * 60 });
    // Whoever signed up may not hold the mailbox: their session ended with the verification.
    expect(await rpc.request(authorityRpc, { user_id: userId, session_id: signedUp.session_id })).toMatchObject({
      active: false,
    });
    await expect(rpc.request(refreshRpc, { refresh_token: signedUp.refresh_token })).rejects.toMatchObject({
      code: 'invalid_token',
    });

    const chosen = await rpc.request(setPasswordRpc, {
      token: grant.set_password_token,
      password: 'another long password',
    });
    expect(chosen.user).toMatchObject({ id: userId, email_verified: true });
    expect((await announced(userVerified, userId)).data.userId).toBe(userId);
    await expect(
      rpc.request(setPasswordRpc, { token: grant.set_password_token, password: 'a third long password' }),
    ).rejects.toMatchObject({ code: 'link_expired', message: 'You have already chosen a password. Sign in with it.' });
    expect(await rpc.request(signInRpc, { email, password: 'another long password', address_key: 'k' })).toMatchObject({
      status: 'signed_in',
    });
  });
});

describe('sessions: refresh-token families (identity.rpc.refresh, sign-out, authority)', () => {
  it('a refresh rotates the token; the old one presented again ends the whole sign-in', async () => {
    const first = await signUp(`bo-${randomUUID().slice(0, 8)}@example.com`);
    const second = await rpc.request(refreshRpc, { refresh_token: first.refresh_token });
    expect(second.session_id).toBe(first.session_id);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    await expect(rpc.request(refreshRpc, { refresh_token: first.refresh_token })).rejects.toMatchObject({
      code: 'invalid_token',
    });
    await expect(rpc.request(refreshRpc, { refresh_token: second.refresh_token })).rejects.toMatchObject({
      code: 'invalid_token',
    });
    expect((await rpc.request(authorityRpc, { user_id: first.user.id, session_id: first.session_id })).active).toBe(
      false,
    );
  });

  it("the link opened where the account's own session is signed in confirms the address and ends nothing", async () => {
    const email = `eve-${randomUUID().slice(0, 8)}@example.com`;
    const signedUp = await signUp(email);
    const userId = signedUp.user.id;
    const token = await mailedToken(email, '/auth/callback');
    // Someone else's session opening the link is not the account's: refused the shortcut below.
    const stranger = sign({ userId: randomUUID(), accountType: 'personal', isAdmin: false, emailVerified: true });
    const own = sign({ userId, accountType: 'personal', isAdmin: false, emailVerified: false });
    expect(await rpc.request(verifyEmailRpc, { token }, own)).toEqual({ step: 'verified', email });
    expect((await announced(userVerified, userId)).data.userId).toBe(userId);
    const authority = await rpc.request(authorityRpc, { user_id: userId, session_id: signedUp.session_id });
    expect(authority).toMatchObject({ active: true, email_verified: true });
    // The link is spent: opened again, by anyone, it says so.
    await expect(rpc.request(verifyEmailRpc, { token }, stranger)).rejects.toMatchObject({ code: 'link_used' });
  });

  it("the link opened in another account's session takes the password step as anywhere else", async () => {
    const email = `fox-${randomUUID().slice(0, 8)}@example.com`;
    const signedUp = await signUp(email);
    const other = sign({ userId: randomUUID(), accountType: 'personal', isAdmin: false, emailVerified: true });
    const grant = await rpc.request(verifyEmailRpc, { token: await mailedToken(email, '/auth/callback') }, other);
    expect(grant).toMatchObject({ step: 'choose_password', email });
    const authority = await rpc.request(authorityRpc, { user_id: signedUp.user.id, session_id: signedUp.session_id });
    expect(authority).toMatchObject({ active: false });
  });

  it('signing out ends that sign-in only', async () => {
    const email = `cy-${randomUUID().slice(0, 8)}@example.com`;
    const first = await signUp(email);
    const signedIn = await rpc.request(signInRpc, { email, password, address_key: 'k' });
    if (signedIn.status !== 'signed_in') throw new Error('expected a session');
    await rpc.request(signOutRpc, { refresh_token: first.refresh_token });
    const authority = (session_id: string) => rpc.request(authorityRpc, { user_id: first.user.id, session_id });
    expect((await authority(first.session_id)).active).toBe(false);
    expect(await authority(signedIn.session.session_id)).toMatchObject({ active: true, email_verified: false });
    // Signing out twice, or with a token nobody issued, changes nothing and answers the same.
    await rpc.request(signOutRpc, { refresh_token: first.refresh_token });
    await rpc.request(signOutRpc, { refresh_token: 'not-a-token' });
    expect((await authority(signedIn.session.session_id)).active).toBe(true);
  });
});

describe('billing’s events make and set an organization (identity’s consumers)', () => {
  it('a Business claim makes the buyer its owner; its subscription’s end suspends it and announces that', async () => {
    const buyer = await signUp(`dee-${randomUUID().slice(0, 8)}@example.com`);
    const userId = buyer.user.id;
    const [orgId, subscriptionId] = [randomUUID(), randomUUID()];
    const state = {
      subscriptionId,
      userId,
      orgId,
      planCode: 'business10',
      currentPeriodEnd: null,
      cancelAtPeriodEnd: false,
    };
    const claim = {
      userId,
      subscriptionId,
      planCode: 'business10',
      accountType: 'business' as const,
      seats: 10,
      orgId,
    };
    await alone.publish(subscriptionActivated, { ...state, status: 'active' });
    await alone.publish(purchaseClaimed, { ...claim, orgName: 'Dee Works' });
    const owner = sign({ userId, accountType: 'business', isAdmin: false, emailVerified: true });
    const organizations = async () => (await rpc.request(listMyOrgsRpc, {}, owner)).organizations;
    const made = await eventually(async () => (await organizations())[0]);
    expect(made).toMatchObject({ id: orgId, name: 'Dee Works', plan: 'business10', is_active: true, role: 'owner' });
    // The gateway's route table reads the person's organizations and roles from their authority.
    expect((await rpc.request(authorityRpc, { user_id: userId, session_id: buyer.session_id })).organizations).toEqual([
      { id: orgId, role: 'owner' },
    ]);

    await alone.publish(subscriptionCanceled, { ...state, status: 'canceled', canceledAt: new Date().toISOString() });
    await eventually(async () => (await organizations())[0]?.is_active === false);
    // Provisioning suspends its devices on this event.
    const status = await eventually(async () => {
      const data = (await alone.lastEvent<Static<typeof organizationStatusChanged.schema>>(organizationStatusChanged))
        ?.data;
      return data?.orgId === orgId && data.isActive === false ? data : undefined;
    });
    expect(status).toMatchObject({ orgId, isActive: false, plan: 'business10' });
    // The same claim delivered again (billing's retry) makes no second organization or owner.
    await alone.publish(purchaseClaimed, claim);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await organizations()).toEqual([expect.objectContaining({ id: orgId, member_count: 1 })]);
  });
});

describe('the operator console’s directory (identity.rpc.admin-*), asked as the gateway and provisioning ask it', () => {
  it('counts people and organizations, names people by id, and finds addresses with % and _ taken literally', async () => {
    const tag = randomUUID().slice(0, 8);
    const people = [];
    for (const local of [`50%off-${tag}`, `50xoff-${tag}`, `under_${tag}`])
      people.push(await signUp(`${local}@example.com`));
    const operator = sign({ userId: randomUUID(), accountType: 'personal', isAdmin: true, emailVerified: true });
    const counts = await rpc.request(adminPeopleCountsRpc, {}, operator);
    expect(counts.users).toBeGreaterThanOrEqual(people.length);
    expect(counts.organizations).toBeGreaterThanOrEqual(1);

    const provisioning = await alone.connect('provisioning');
    try {
      const asProvisioning = new RpcClient(provisioning);
      const [first, second] = people;
      const directory = await asProvisioning.request(
        adminDirectoryRpc,
        {
          user_ids: [first!.user.id.toUpperCase(), first!.user.id, second!.user.id, randomUUID()],
          org_ids: [randomUUID()],
        },
        operator,
      );
      expect(directory.organizations).toEqual([]);
      expect(directory.users.map((user) => user.email).sort()).toEqual([first!.user.email, second!.user.email].sort());
      expect(directory.users[0]).toHaveProperty('full_name', null);

      const found = await asProvisioning.request(adminFindUsersRpc, { q: `50%OFF-${tag}`, limit: 10 }, operator);
      expect(found).toEqual({ user_ids: [first!.user.id], truncated: false });
      const underscore = await asProvisioning.request(adminFindUsersRpc, { q: `under_${tag}`, limit: 10 }, operator);
      expect(underscore.user_ids).toEqual([people[2]!.user.id]);
      const both = await asProvisioning.request(adminFindUsersRpc, { q: `off-${tag}`, limit: 1 }, operator);
      expect(both.user_ids).toHaveLength(1);
      expect(both.truncated).toBe(true);

      // Where provisioning mails a person's device configuration (no caller: NATS says who may ask).
      expect(await asProvisioning.request(adminDirectoryRpc, { user_ids: [], org_ids: [] }, operator)).toEqual({
        users: [],
        organizations: [],
      });
      expect(await asProvisioning.request(mailAddressRpc, { user_id: first!.user.id })).toEqual({
        email: first!.user.email,
        verified: false,
      });
      await expect(asProvisioning.request(mailAddressRpc, { user_id: randomUUID() })).rejects.toMatchObject({
        code: 'not_found',
      });
      const customer = sign({ userId: randomUUID(), accountType: 'personal', isAdmin: false, emailVerified: true });
      await expect(asProvisioning.request(adminFindUsersRpc, { q: tag, limit: 10 }, customer)).rejects.toMatchObject({
        code: 'forbidden',
      });
    } finally {
      await provisioning.close();
    }
  });
});

describe('two-factor sign-in (identity.rpc.mfa-*, sign-in-mfa)', () => {
  const code = (secret: string, offsetSteps = 0) =>
    generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSteps * 30 });

  it('on for a verified address only; confirming ends the other sessions; a challenge takes each code once', async () => {
    const email = `eve-${randomUUID().slice(0, 8)}@example.com`;
    const signedUp = await signUp(email);
    const unverified = sign({
      userId: signedUp.user.id,
      accountType: 'personal',
      isAdmin: false,
      emailVerified: false,
    });
    await expect(rpc.request(mfaEnrolRpc, {}, unverified)).rejects.toMatchObject({ code: 'email_unverified' });
    const grant = await passwordStep(email);
    const verified = await rpc.request(setPasswordRpc, { token: grant.set_password_token, password });
    const person = sign({ userId: verified.user.id, accountType: 'personal', isAdmin: false, emailVerified: true });

    const { secret } = await rpc.request(mfaEnrolRpc, {}, person);
    await expect(rpc.request(mfaConfirmRpc, { code: '000000' }, person)).rejects.toMatchObject({
      code: 'validation_failed',
    });
    const confirmed = await rpc.request(mfaConfirmRpc, { code: await code(secret, -1) }, person);
    expect(confirmed.recovery_codes).toHaveLength(10);
    const authority = (session_id: string) => rpc.request(authorityRpc, { user_id: verified.user.id, session_id });
    expect((await authority(verified.session_id)).active).toBe(false);
    expect((await authority(confirmed.session.session_id)).active).toBe(true);
    await expect(rpc.request(mfaEnrolRpc, {}, person)).rejects.toMatchObject({ code: 'conflict' });

    const challenge = async () => {
      const answer = await rpc.request(signInRpc, { email, password, address_key: 'k' });
      if (answer.status !== 'mfa_required') throw new Error('expected a second factor');
      return answer.mfa_token;
    };
    // The code that confirmed is spent; the current one signs in once.
    const first = await challenge();
    await expect(
      rpc.request(signInMfaRpc, { address_key: 'k', mfa_token: first, code: await code(secret, -1) }),
    ).rejects.toMatchObject({
      code: 'validation_failed',
    });
    const current = await code(secret);
    const session = await rpc.request(signInMfaRpc, { address_key: 'k', mfa_token: first, code: current });
    expect(session.user.id).toBe(verified.user.id);
    await expect(
      rpc.request(signInMfaRpc, { address_key: 'k', mfa_token: first, code: current }),
    ).rejects.toMatchObject({
      code: 'invalid_token',
    });
    // A recovery code works once.
    const recovery = confirmed.recovery_codes[0]!;
    expect(
      (await rpc.request(signInMfaRpc, { address_key: 'k', mfa_token: await challenge(), code: recovery })).user.id,
    ).toBe(verified.user.id);
    await expect(
      rpc.request(signInMfaRpc, { address_key: 'k', mfa_token: await challenge(), code: recovery }),
    ).rejects.toMatchObject({
      code: 'validation_failed',
    });

    await rpc.request(mfaDisableRpc, { code: confirmed.recovery_codes[1]! }, person);
    expect(await rpc.request(signInRpc, { email, password, address_key: 'k' })).toMatchObject({ status: 'signed_in' });
  });
});
