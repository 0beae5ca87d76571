import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import {
  AppError,
  contactEmailProblem,
  contactMessageMaxLength,
  contactMessageMinLength,
  contactMessageProblem,
  normalizeEmail,
} from '@qw/contracts';
import type { Mailer } from '@qw/platform/mailer';
import type { IdentityDatabase } from '../database.ts';
import { contactForwardMail } from '../mail/identity-mail.ts';
import { takeRateLimited } from '@qw/platform/limits';
import { contactLimit } from '../accounts/rate-limits.ts';
import * as repo from './contact.repository.ts';

/** The public contact form: stored first (nothing is lost), then forwarded to support by mail. */
export class ContactService {
  constructor(
    private readonly deps: { db: Kysely<IdentityDatabase>; mailer: Mailer; logger: Logger; supportEmail: string },
  ) {}

  async submit(input: { email: string; message: string; address_key: string }): Promise<{ id: string }> {
    const email = normalizeEmail(input.email);
    if (contactEmailProblem(email))
      throw new AppError('validation_failed', 'Enter a valid email address.', { field: 'email' });
    const message = input.message.trim();
    const problem = contactMessageProblem(message);
    if (problem === 'missing' || problem === 'too_short')
      throw new AppError('validation_failed', `Write at least ${contactMessageMinLength} characters.`, {
        field: 'message',
      });
    if (problem === 'too_long')
      throw new AppError(
        'validation_failed',
        `Keep the message under ${contactMessageMaxLength.toLocaleString('en-US')} characters.`,
        { field: 'message' },
      );
    const id = randomUUID();
    await this.deps.db.transaction().execute(async (tx) => {
      await takeRateLimited(
        tx,
        [{ key: `contact:${input.address_key}`, limit: contactLimit }],
        (wait) =>
          `You have sent several messages already. Try again in ${wait}, or write to ${this.deps.supportEmail}.`,
      );
      await repo.insertContactMessage(tx, { id, email, message });
    });
    await this.forward(id);
    return { id };
  }

  /** Mails one stored message to support; messages not yet forwarded are retried by `forwardPending`. */
  async forward(id: string): Promise<void> {
    const { db, mailer, logger, supportEmail } = this.deps;
    const row = await repo.findUnforwarded(db, id);
    if (!row) return;
    try {
      await mailer.send(contactForwardMail(supportEmail, row.email, row.message, row.id));
      await repo.markForwarded(db, id);
    } catch (error) {
      logger.warn({ err: error, contactId: id }, 'contact message not forwarded yet; will retry');
    }
  }

  async forwardPending(): Promise<void> {
    for (const id of await repo.listUnforwardedIds(this.deps.db, 50)) await this.forward(id);
  }
}
