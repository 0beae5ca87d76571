import { runServiceProcess } from '@qw/platform';
import { billingService } from './app.ts';
import { BillingConfigSchema, paymentSetupRule } from './config.ts';

await runServiceProcess('billing', BillingConfigSchema, (config) => billingService(config), [paymentSetupRule]);
