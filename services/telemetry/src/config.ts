import { Type, type Static } from 'typebox';
import { callerTokenEnv, commonEnv, databaseEnv, httpEnv } from '@qw/platform/config';

export const TelemetryConfigSchema = Type.Object({
  ...commonEnv,
  ...databaseEnv,
  ...callerTokenEnv,
  ...httpEnv(8084),
});
export type TelemetryConfig = Static<typeof TelemetryConfigSchema>;
