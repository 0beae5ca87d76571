import { loadConfig, loadConfigOrExit, runServiceProcess } from '@qw/platform';
import { billingService } from './app.ts';
import { BillingConfigSchema } from './config.ts';

const config = loadConfigOrExit('billing', () => loadConfig(BillingConfigSchema));
await runServiceProcess(billingService(config), BillingConfigSchema);
