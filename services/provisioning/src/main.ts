import { previousDiffers, runServiceProcess } from '@qw/platform';
import { provisioningService } from './app.ts';
import { ProvisioningConfigSchema } from './config.ts';

await runServiceProcess('provisioning', ProvisioningConfigSchema, (config) => provisioningService(config), [
  previousDiffers('PRIVATE_KEY_ENCRYPTION_KEY_PREVIOUS', 'PRIVATE_KEY_ENCRYPTION_KEY'),
]);
