import { Type, type Static } from 'typebox';
import { commonEnv, databaseEnv, httpEnv } from '@qw/platform/config';

export const AnalyticsConfigSchema = Type.Object({
  ...commonEnv,
  ...databaseEnv,
  ...httpEnv(8085),
});
export type AnalyticsConfig = Static<typeof AnalyticsConfigSchema>;
