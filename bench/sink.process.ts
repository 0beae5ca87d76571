/** The consuming service of the bus benchmark, in its own process as in production. SINK_BATCH=1 takes its events in batches. */
import { startService } from '@qw/platform';
import { sinkService } from '../libs/platform/test/fixtures/probe-services.ts';

const running = await startService(sinkService({ batch: process.env.SINK_BATCH === '1' }), {
  DATABASE_URL: process.env.DATABASE_URL!,
  NATS_URL: process.env.NATS_URL!,
  BUS_NAMESPACE: process.env.BUS_NAMESPACE!,
  LOG_LEVEL: 'warn',
});
process.stdout.write('ready\n');
process.once('SIGTERM', () => void running.stop().then(() => process.exit(0)));
