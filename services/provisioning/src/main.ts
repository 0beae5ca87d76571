import { runServiceProcess } from '@qw/platform';
import { provisioningService } from './app.ts';
import { ProvisioningConfigSchema } from './config.ts';

await runServiceProcess('provisioning', ProvisioningConfigSchema, (config) => provisioningService(config));
