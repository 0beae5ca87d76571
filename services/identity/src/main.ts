import { runServiceProcess } from '@qw/platform';
import { identityService } from './app.ts';
import { IdentityConfigSchema } from './config.ts';

await runServiceProcess(identityService, IdentityConfigSchema);
