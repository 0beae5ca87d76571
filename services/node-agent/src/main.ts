import { createLogger, loadConfig, loadConfigOrExit, onShutdown } from '@qw/platform';
import { NodeAgent } from './agent.ts';
import { NodeAgentConfigSchema } from './config.ts';

const config = loadConfigOrExit('node-agent', () => loadConfig(NodeAgentConfigSchema));
const logger = createLogger({ service: 'node-agent', level: config.LOG_LEVEL });
const agent = new NodeAgent(config, logger);
try {
  await agent.start();
  onShutdown(logger, () => agent.stop());
} catch (error) {
  logger.fatal({ err: error }, 'node agent failed to start');
  process.exit(1);
}
