import { loadConfig, loadConfigOrExit, runServiceProcess } from '@qw/platform';
import { identityService } from './app.ts';
import { IdentityConfigSchema } from './config.ts';

const config = loadConfigOrExit('identity', () => loadConfig(IdentityConfigSchema));
await runServiceProcess(identityService(config), IdentityConfigSchema);
