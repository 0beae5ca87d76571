import path from 'node:path';
import { identityEvents, normalizeEmail } from '@qw/contracts';
import { createMailer, type Mailer } from '@qw/platform/mailer';
import type { ServiceDefinition } from '@qw/platform';
import type { IdentityDatabase } from './database.ts';
import { AccountsService } from './accounts/accounts.service.ts';
import { upsertAdminEmails } from './accounts/accounts.repository.ts';
import { pruneRateEvents } from './accounts/rate-limits.ts';
import { MfaService } from './mfa/mfa.service.ts';
import { ContactService } from './contact/contact.service.ts';
import { accountsEndpoints } from './rpc/accounts.rpc.ts';
import { mfaEndpoints } from './rpc/mfa.rpc.ts';
import { contactEndpoints } from './rpc/contact.rpc.ts';
import { purchaseClaimedConsumer } from './consumers/purchase-claimed.consumer.ts';

export type IdentitySettings = {
  PUBLIC_URL: string;
  SUPPORT_EMAIL: string;
  ADMIN_EMAILS: string;
  MAIL_URL?: string | undefined;
  MAIL_FROM: string;
  MAIL_DIR: string;
};

/**
 * The identity service: users, credentials, sessions, e-mail links, profiles, the admin list,
 * two-factor sign-in, organizations and members, and the contact form.
 */
export function identityService(settings: IdentitySettings, options: { mailer?: Mailer } = {}): ServiceDefinition<IdentityDatabase> {
  let contact: ContactService | undefined;
  let mailer = options.mailer;
  const mailerFor = (logger: Parameters<typeof createMailer>[0]['logger']) =>
    (mailer ??= createMailer({ mailUrl: settings.MAIL_URL, from: settings.MAIL_FROM, outboxDir: path.resolve(settings.MAIL_DIR), logger }));
  return {
    name: 'identity',
    version: '0.2.0',
    migrations: new URL('../migrations/', import.meta.url),
    events: identityEvents,
    async onStart({ db }) {
      const admins = settings.ADMIN_EMAILS.split(',').map(normalizeEmail).filter(Boolean);
      await upsertAdminEmails(db, admins);
    },
    rpc: ({ db, logger }) => {
      const accounts = new AccountsService({ db, mailer: mailerFor(logger), logger, publicUrl: settings.PUBLIC_URL });
      const mfa = new MfaService(db);
      contact = new ContactService({ db, mailer: mailerFor(logger), logger, supportEmail: settings.SUPPORT_EMAIL });
      return [...accountsEndpoints(accounts, mfa, db), ...mfaEndpoints(mfa), ...contactEndpoints(contact)];
    },
    consumers: () => [purchaseClaimedConsumer],
    tasks: ({ db }) => [
      { name: 'forward-contact-messages', everyMs: 60_000, run: async () => contact?.forwardPending() },
      { name: 'prune-rate-events', everyMs: 15 * 60_000, run: () => pruneRateEvents(db) },
    ],
  };
}
