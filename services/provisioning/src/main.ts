import { loadConfig, loadConfigOrExit, runServiceProcess } from '@qw/platform';
import { provisioningService } from './app.ts';
import { ProvisioningConfigSchema } from './config.ts';

const config = loadConfigOrExit('provisioning', () => loadConfig(ProvisioningConfigSchema));
await runServiceProcess(provisioningService(config), ProvisioningConfigSchema);
