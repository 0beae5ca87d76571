import { Type, type Static } from 'typebox';
import { callerTokenEnv, commonEnv, databaseEnv, httpEnv, mailEnv, type ConfigRule } from '@qw/platform/config';

export const IdentityConfigSchema = Type.Object({
  ...commonEnv,
  ...databaseEnv,
  ...callerTokenEnv,
  ...httpEnv(8081),
  ...mailEnv,
  PUBLIC_URL: Type.String({ default: 'http://localhost:8080', pattern: '^https?://' }),
  SUPPORT_EMAIL: Type.String({ default: 'support@quietwire.test', format: 'email' }),
  /** Comma-separated e-mails that are platform admins (kept in admin_emails at start). */
  ADMIN_EMAILS: Type.String({ default: '' }),
  DEMO_TOOLS: Type.Boolean({
    default: false,
    description: 'answers identity.rpc.demo-sign-up, which the demo history uses (make dev: true; never in production)',
  }),
  MARK_TEST_ACCOUNTS: Type.Boolean({
    default: false,
    description:
      'accounts made at a reserved test domain (.test, .example, .invalid, .localhost, example.com/.net/.org) are test accounts from the start (make dev: true)',
  }),
});
export type IdentityConfig = Static<typeof IdentityConfigSchema>;

/**
 * What keeps these demo settings from running: accounts back-dated, verified without their
 * mailbox and with a password nobody knows belong to a demo, never to production.
 */
export function demoToolsProblems(setup: {
  NODE_ENV?: string | undefined;
  DEMO_TOOLS?: boolean | undefined;
}): string[] {
  return setup.DEMO_TOOLS && setup.NODE_ENV === 'production'
    ? [
        'DEMO_TOOLS must be off in production: it makes accounts with a past sign-up date and a confirmed address without their mailbox',
      ]
    : [];
}

export const demoToolsRule: ConfigRule<IdentityConfig> = (config) => demoToolsProblems(config).join('; ') || undefined;
