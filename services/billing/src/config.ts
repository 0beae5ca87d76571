import { Type, type Static } from 'typebox';
import { commonEnv, databaseEnv, httpEnv } from '@qw/platform/config';

export const BillingConfigSchema = Type.Object({
  ...commonEnv,
  ...databaseEnv,
  ...httpEnv(8082),
});
export type BillingConfig = Static<typeof BillingConfigSchema>;
