import { Type, type Static } from 'typebox';
import { commonEnv, databaseEnv, httpEnv } from '@qw/platform/config';

export const ProvisioningConfigSchema = Type.Object({
  ...commonEnv,
  ...databaseEnv,
  ...httpEnv(8083),
});
export type ProvisioningConfig = Static<typeof ProvisioningConfigSchema>;
