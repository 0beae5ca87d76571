/**
 * An agent stand-in for tunnel-check.test.ts: starts the tunnel check on 127.0.0.1:<argv[2]>, prints
 * `started <pid of the check>` and waits to be killed.
 */
import pino from 'pino';
import { startTunnelCheck } from '../../src/tunnel-check.ts';

const port = Number(process.argv[2]);
await startTunnelCheck(
  '',
  { iface: 'wg-none', node: 'test-1', addresses: ['127.0.0.1'], port, origins: [], resolvers: [] },
  pino({ level: 'silent' }),
);
process.stdout.write('started\n');
setInterval(() => undefined, 60_000);
