import path from 'node:path';
import { identityEvents, normalizeEmail } from '@qw/contracts';
import { createMailer, MailQueue, type Mailer } from '@qw/platform/mailer';
import type { ServiceContext, ServiceDefinition } from '@qw/platform';
import { ConfigError } from '@qw/platform/config';
import { demoToolsProblems } from './config.ts';
import type { IdentityDatabase } from './database.ts';
import { AccountsService } from './accounts/accounts.service.ts';
import { SessionsService } from './sessions/sessions.service.ts';
import { EmailLinksService } from './email-links/email-links.service.ts';
import { ProfilesService } from './profiles/profiles.service.ts';
import { syncAdminEmails } from './accounts/accounts.repository.ts';
import { MfaService } from './mfa/mfa.service.ts';
import { ContactService } from './contact/contact.service.ts';
import { accountsEndpoints } from './rpc/accounts.rpc.ts';
import { mfaEndpoints } from './rpc/mfa.rpc.ts';
import { contactEndpoints } from './rpc/contact.rpc.ts';
import { mailAddressEndpoint } from './rpc/mail-address.rpc.ts';
import { authorityEndpoint } from './rpc/authority.rpc.ts';
import { demoSignUpEndpoint } from './rpc/demo-sign-up.rpc.ts';
import { purchaseClaimedConsumer } from './consumers/purchase-claimed.consumer.ts';
import { subscriptionConsumers } from './consumers/subscription-changed.consumer.ts';
import { deviceAuditConsumers } from './consumers/device-audit.consumer.ts';
import { billingMailConsumers } from './consumers/billing-mail.consumer.ts';
import { refundAuditConsumer } from './consumers/refund-audit.consumer.ts';
import { billingMailRenderers } from './mail/billing-mail.ts';
import { organizationEndpoints } from './rpc/organizations.rpc.ts';
import { directoryEndpoints } from './rpc/directory.rpc.ts';
import { MembersService } from './organizations/members.service.ts';
import { InvitationsService } from './organizations/invitations.service.ts';
import { AdminConsoleService } from './admin/admin-console.service.ts';
import { adminEndpoints } from './rpc/admin.rpc.ts';
import { AdminPersonService } from './admin/admin-person.service.ts';
import { adminPersonEndpoints } from './rpc/admin-person.rpc.ts';
import { AccountDataService } from './accounts/account-data.service.ts';
import { accountDataEndpoints } from './rpc/account-data.rpc.ts';

export type IdentitySettings = {
  PUBLIC_URL: string;
  SUPPORT_EMAIL: string;
  ADMIN_EMAILS: string;
  MAIL_URL?: string | undefined;
  MAIL_FROM: string;
  MAIL_DIR: string;
  /** identity.rpc.demo-sign-up answers (the demo history); refused in production. */
  DEMO_TOOLS?: boolean | undefined;
  /** Accounts made at a reserved test domain are test accounts from the start (issue #26; make dev). */
  MARK_TEST_ACCOUNTS?: boolean | undefined;
  NODE_ENV?: string | undefined;
};

/**
 * The identity service: users, credentials, sessions, e-mail links, profiles, the admin list,
 * two-factor sign-in, the operator console's accounts (people, organizations, the admin list, the
 * operators' audit), organizations (members, roles, invitations, status from billing, the audit
 * log gathered from identity's own changes and provisioning's device events), and the contact form.
 */
export function identityService(
  settings: IdentitySettings,
  options: { mailer?: Mailer } = {},
): ServiceDefinition<IdentityDatabase> {
  const problems = demoToolsProblems(settings);
  if (problems.length > 0) throw new ConfigError(problems);
  let contact: ContactService | undefined;
  let mailer = options.mailer;
  const mailerFor = (logger: Parameters<typeof createMailer>[0]['logger']) =>
    (mailer ??= createMailer({
      mailUrl: settings.MAIL_URL,
      from: settings.MAIL_FROM,
      outboxDir: path.resolve(settings.MAIL_DIR),
      logger,
    }));
  // Billing's receipts and notices: queued by their consumers in the inbox's transaction, sent after
  // the commit and at start; jobs a mail server refused are retried by the contact task's minute.
  let mailQueue: MailQueue | undefined;
  let lastPrune = 0;
  const mailQueueFor = ({ db, logger, rpc }: ServiceContext<IdentityDatabase>) =>
    (mailQueue ??= new MailQueue({
      db,
      mailer: mailerFor(logger),
      logger,
      renderers: billingMailRenderers({ db, publicUrl: settings.PUBLIC_URL, rpc }),
    }));
  const sendQueuedMail = (context: ServiceContext<IdentityDatabase>) =>
    mailQueueFor(context)
      .wake()
      .catch((error: unknown) => context.logger.warn({ err: error }, 'queued mail not sent yet; will retry'));
  return {
    name: 'identity',
    version: '0.3.0',
    migrations: new URL('../migrations/', import.meta.url),
    events: identityEvents,
    async onStart({ db }) {
      const admins = settings.ADMIN_EMAILS.split(',').map(normalizeEmail).filter(Boolean);
      await syncAdminEmails(db, admins);
    },
    rpc: ({ db, readDb, logger }) => {
      const sessions = new SessionsService({ db, logger });
      const emailLinks = new EmailLinksService({
        db,
        mailer: mailerFor(logger),
        logger,
        publicUrl: settings.PUBLIC_URL,
        sessions,
      });
      const accounts = new AccountsService({
        db,
        logger,
        sessions,
        emailLinks,
        markTestAccounts: settings.MARK_TEST_ACCOUNTS === true,
      });
      const profiles = new ProfilesService({ db });
      const mfa = new MfaService(db);
      contact = new ContactService({ db, mailer: mailerFor(logger), logger, supportEmail: settings.SUPPORT_EMAIL });
      const invitations = new InvitationsService({
        db,
        mailer: mailerFor(logger),
        logger,
        publicUrl: settings.PUBLIC_URL,
      });
      return [
        ...accountsEndpoints({ db, accounts, sessions, emailLinks, profiles, mfa }),
        ...mfaEndpoints(mfa, sessions),
        ...contactEndpoints(contact),
        mailAddressEndpoint(db),
        authorityEndpoint(db),
        ...organizationEndpoints({ db, members: new MembersService(db), invitations }),
        demoSignUpEndpoint(accounts, settings.DEMO_TOOLS === true),
        ...adminEndpoints(new AdminConsoleService(db, readDb)),
        ...adminPersonEndpoints(new AdminPersonService(db, emailLinks)),
        ...directoryEndpoints(db),
        ...accountDataEndpoints(new AccountDataService({ db, mailer: mailerFor(logger), logger })),
      ];
    },
    consumers: (context) => [
      purchaseClaimedConsumer,
      ...subscriptionConsumers,
      ...deviceAuditConsumers,
      refundAuditConsumer,
      ...billingMailConsumers.map((spec) => ({ ...spec, afterCommit: () => void sendQueuedMail(context) })),
    ],
    // No timer of its own: the queue is woken after each commit, once at start, and by the minute
    // that forwards contact messages (retries); stopping waits for a pass under way.
    workers: (context) => [
      {
        name: 'billing-mail',
        start: async () => void sendQueuedMail(context),
        stop: () => mailQueueFor(context).stop(),
      },
    ],
    tasks: (context) => [
      {
        name: 'forward-contact-messages',
        everyMs: 60_000,
        run: async () => {
          await contact?.forwardPending();
          await sendQueuedMail(context);
          // Sent mail jobs are kept a week, then forgotten (checked once an hour).
          if (Date.now() - lastPrune >= 3600_000) {
            lastPrune = Date.now();
            await mailQueueFor(context).prune();
          }
        },
      },
    ],
  };
}
