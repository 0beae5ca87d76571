import { Type, type Static } from 'typebox';
import { commonEnv, databaseEnv, httpEnv, mailEnv } from '@qw/platform/config';

export const IdentityConfigSchema = Type.Object({
  ...commonEnv,
  ...databaseEnv,
  ...httpEnv(8081),
  ...mailEnv,
  PUBLIC_URL: Type.String({ default: 'http://localhost:8080', pattern: '^https?://' }),
  SUPPORT_EMAIL: Type.String({ default: 'support@quietwire.test', format: 'email' }),
  /** Comma-separated e-mails that are platform admins (kept in admin_emails at start). */
  ADMIN_EMAILS: Type.String({ default: '' }),
});
export type IdentityConfig = Static<typeof IdentityConfigSchema>;
