import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { AppError, normalizeEmail, userRegistered, userVerified, type IssuedSession } from '@qw/contracts';
import { addToOutbox } from '@qw/platform/bus';
import { clearRateEvents, giveBackRateEvents, takeRateLimited, takeRateLimits } from '@qw/platform/limits';
import type { IdentityDatabase } from '../database.ts';
import type { EmailLinksService } from '../email-links/email-links.service.ts';
import type { SessionsService } from '../sessions/sessions.service.ts';
import * as repo from './accounts.repository.ts';
import { validateEmail } from './account-rules.ts';
import { isReservedTestAddress } from './test-account-rules.ts';
import { hashPassword, passwordProblem, spendPasswordCheck, verifyPassword } from './passwords.ts';
import { signInChecks, signUpChecks } from './rate-limits.ts';
import { newSecretToken } from './secret-tokens.ts';

export type AccountsDeps = {
  db: Kysely<IdentityDatabase>;
  logger: Logger;
  sessions: SessionsService;
  emailLinks: EmailLinksService;
  /** Accounts made at a reserved test domain are test accounts from the start (issue #26; make dev). */
  markTestAccounts?: boolean;
};

const invalidCredentials = () => new AppError('invalid_credentials', 'Invalid email or password.');
const alreadyRegistered = () =>
  new AppError('already_exists', 'A user with this email address has already been registered.', { field: 'email' });

/**
 * Longer than a password check takes on a busy machine, well inside the gateway's RPC timeout (5 s):
 * a refused sign-in waits at most this long for the attempts in flight beside it.
 */
const signInSettleMs = 2_000;

/** Accounts coming into being (sign-up, the demo history's) and a password's sign-in. */
export class AccountsService {
  constructor(private readonly deps: AccountsDeps) {}

  private marksAsTest(email: string): boolean {
    return this.deps.markTestAccounts === true && isReservedTestAddress(email);
  }

  private get db() {
    return this.deps.db;
  }

  /**
   * `addressProven`: the person holds mail sent to this address (an invitation's link), so the
   * account starts confirmed, announced as verified, and no verification mail goes out.
   */
  async signUp(
    input: { email: string; password: string; address_key: string },
    options: { addressProven?: boolean } = {},
  ): Promise<IssuedSession> {
    const email = validateEmail(input.email);
    const problem = passwordProblem(input.password, email);
    if (problem) throw new AppError('weak_password', problem, { field: 'password' });
    // Every attempt that passed validation counts, a refused duplicate too (it tells whether an
    // address has an account), and before the slow hash.
    const checks = signUpChecks(email, input.address_key);
    await takeRateLimits(this.db, [
      { checks: checks.address, message: (wait) => `Too many new accounts from here. Try again in ${wait}.` },
      {
        checks: checks.domain,
        message: (wait) => `Too many new accounts for this email domain. Try again in ${wait}.`,
      },
    ]);
    const passwordHash = await hashPassword(input.password);
    const userId = randomUUID();
    const { session, verifyToken } = await this.db.transaction().execute(async (tx) => {
      const created = await repo.insertUserWithProfile(tx, {
        id: userId,
        email,
        passwordHash,
        isTest: this.marksAsTest(email),
      });
      if (!created) throw alreadyRegistered();
      const now = new Date().toISOString();
      await addToOutbox(tx, userRegistered, { userId, accountType: 'personal', registeredAt: now });
      let verifyToken: string | undefined;
      if (options.addressProven && (await repo.setEmailVerified(tx, userId)))
        await addToOutbox(tx, userVerified, { userId, verifiedAt: now });
      else verifyToken = await this.deps.emailLinks.addVerificationToken(tx, userId);
      return { session: await this.deps.sessions.issueSession(tx, userId), verifyToken };
    });
    if (verifyToken) await this.deps.emailLinks.sendVerification(email, verifyToken);
    return session;
  }

  /**
   * The demo history's sign-up (DEMO_TOOLS only): an account as if made on `registered_at`, its
   * address confirmed then, with a random password nobody is told (no session, no mail). Its
   * events say that day, so analytics counts it there.
   */
  async demoSignUp(input: { email: string; full_name?: string | undefined; registered_at: string }) {
    const email = validateEmail(input.email);
    const registeredAt = new Date(input.registered_at);
    if (Number.isNaN(registeredAt.getTime()))
      throw new AppError('validation_failed', 'registered_at must be a date and time.', { field: 'registered_at' });
    if (registeredAt.getTime() > Date.now() + 60_000)
      throw new AppError('validation_failed', 'registered_at must not be in the future.', { field: 'registered_at' });
    const passwordHash = await hashPassword(newSecretToken());
    const userId = randomUUID();
    await this.db.transaction().execute(async (tx) => {
      const created = await repo.insertUserWithProfile(tx, {
        id: userId,
        email,
        passwordHash,
        createdAt: registeredAt,
        emailVerifiedAt: registeredAt,
        fullName: input.full_name?.trim() || null,
        isTest: this.marksAsTest(email),
      });
      if (!created) throw alreadyRegistered();
      await addToOutbox(tx, userRegistered, {
        userId,
        accountType: 'personal',
        registeredAt: registeredAt.toISOString(),
      });
      await addToOutbox(tx, userVerified, { userId, verifiedAt: registeredAt.toISOString() });
    });
    this.deps.logger.info({ userId }, 'demo account made');
    return { user_id: userId };
  }

  async signIn(input: { email: string; password: string; address_key: string }): Promise<{ userId: string }> {
    const email = normalizeEmail(input.email);
    const checks = signInChecks(email, input.address_key);
    // Counted as a failure before the password is checked, so parallel guesses cannot all pass
    // the same count; a right password gives its count back. An attempt refused while others are
    // still being checked waits for them (a few seconds at most): right ones beside it count nothing.
    const attempt = await takeRateLimited(
      this.db,
      [checks.pair, checks.address],
      (wait) => `Too many sign-in attempts. Try again in ${wait}.`,
      { settleMs: signInSettleMs },
    );
    const user = await repo.findUserByEmail(this.db, email);
    // An unknown address spends the same time on a password check, so timing tells nothing.
    if (!user) await spendPasswordCheck(input.password);
    const valid = user ? await verifyPassword(user.password_hash, input.password) : false;
    if (!user || !valid) throw invalidCredentials();
    await giveBackRateEvents(this.db, attempt);
    await clearRateEvents(this.db, checks.pair.key);
    return { userId: user.id };
  }
}
