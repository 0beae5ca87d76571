import { runServiceProcess } from '@qw/platform';
import { telemetryService } from './app.ts';
import { TelemetryConfigSchema } from './config.ts';

await runServiceProcess('telemetry', TelemetryConfigSchema, () => telemetryService);
