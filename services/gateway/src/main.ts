import { connectBus, createLogger, loadConfig, loadConfigOrExit, onShutdown, RpcClient } from '@qw/platform';
import { buildGateway } from './app.ts';
import { GatewayConfigSchema } from './config.ts';

const config = loadConfigOrExit('gateway', () => loadConfig(GatewayConfigSchema));
const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
try {
  const bus = await connectBus({ url: config.NATS_URL, name: 'gateway', namespace: config.BUS_NAMESPACE, logger });
  const app = await buildGateway(config, { bus, rpc: new RpcClient(bus, config.RPC_TIMEOUT_MS), logger });
  await app.listen({ host: config.HTTP_HOST, port: config.HTTP_PORT });
  logger.info({ port: config.HTTP_PORT }, 'gateway ready');
  onShutdown(logger, async () => {
    await app.close();
    await bus.close();
  });
} catch (error) {
  logger.fatal({ err: error }, 'gateway failed to start');
  process.exit(1);
}
