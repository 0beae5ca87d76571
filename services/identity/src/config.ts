import { Type, type Static } from 'typebox';
import { commonEnv, databaseEnv, httpEnv } from '@qw/platform/config';

export const IdentityConfigSchema = Type.Object({
  ...commonEnv,
  ...databaseEnv,
  ...httpEnv(8081),
});
export type IdentityConfig = Static<typeof IdentityConfigSchema>;
