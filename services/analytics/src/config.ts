import { Type, type Static } from 'typebox';
import { callerTokenEnv, commonEnv, databaseEnv, httpEnv } from '@qw/platform/config';

export const AnalyticsConfigSchema = Type.Object({
  ...commonEnv,
  ...databaseEnv,
  ...callerTokenEnv,
  ...httpEnv(8085),
});
export type AnalyticsConfig = Static<typeof AnalyticsConfigSchema>;
