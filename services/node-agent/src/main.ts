import {
  createLogger,
  loadConfig,
  loadConfigOrExit,
  onShutdown,
  productionRequires,
  productionRequiresOneOf,
} from '@qw/platform';
import { NodeAgent } from './agent.ts';
import { NodeAgentConfigSchema } from './config.ts';

// A node's host faces the internet: in production it reaches NATS only over TLS, the server verified.
const config = loadConfigOrExit('node-agent', () =>
  loadConfig(NodeAgentConfigSchema, process.env, [
    productionRequiresOneOf('NATS_CREDS', 'NATS_PASSWORD'),
    productionRequires('NATS_CA_FILE'),
  ]),
);
const logger = createLogger({ service: 'node-agent', level: config.LOG_LEVEL });
const agent = new NodeAgent(config, logger);
try {
  await agent.start();
  onShutdown(logger, () => agent.stop());
} catch (error) {
  logger.fatal({ err: error }, 'node agent failed to start');
  process.exit(1);
}
