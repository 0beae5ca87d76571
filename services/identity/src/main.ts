import { runServiceProcess } from '@qw/platform';
import { identityService } from './app.ts';
import { demoToolsRule, IdentityConfigSchema } from './config.ts';

await runServiceProcess('identity', IdentityConfigSchema, (config) => identityService(config), [demoToolsRule]);
