import { runServiceProcess } from '@qw/platform';
import { billingService } from './app.ts';
import { BillingConfigSchema } from './config.ts';

await runServiceProcess(billingService, BillingConfigSchema);
