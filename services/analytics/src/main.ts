import { runServiceProcess } from '@qw/platform';
import { analyticsService } from './app.ts';
import { AnalyticsConfigSchema } from './config.ts';

await runServiceProcess('analytics', AnalyticsConfigSchema, () => analyticsService());
