import {
  connectBus,
  createLogger,
  loadConfig,
  loadConfigOrExit,
  onShutdown,
  previousDiffers,
  productionRequiresOneOf,
  RpcClient,
} from '@qw/platform';
import { buildGateway, buildOperationsApp } from './app.ts';
import { GatewayConfigSchema } from './config.ts';

const config = loadConfigOrExit('gateway', () =>
  loadConfig(GatewayConfigSchema, process.env, [
    productionRequiresOneOf('NATS_CREDS', 'NATS_PASSWORD'),
    previousDiffers('JWT_SECRET_PREVIOUS', 'JWT_SECRET'),
  ]),
);
const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
try {
  const bus = await connectBus({
    url: config.NATS_URL,
    name: 'gateway',
    namespace: config.BUS_NAMESPACE,
    logger,
    credsFile: config.NATS_CREDS,
    user: config.NATS_CREDS ? config.NATS_USER : config.NATS_PASSWORD ? (config.NATS_USER ?? 'gateway') : undefined,
    password: config.NATS_PASSWORD,
    caFile: config.NATS_CA_FILE,
  });
  const deps = { bus, rpc: new RpcClient(bus, config.RPC_TIMEOUT_MS), logger };
  const app = await buildGateway(config, deps);
  const operations = buildOperationsApp(deps);
  await app.listen({ host: config.HTTP_HOST, port: config.HTTP_PORT });
  await operations.listen({ host: config.INTERNAL_HTTP_HOST, port: config.INTERNAL_HTTP_PORT });
  logger.info({ port: config.HTTP_PORT, internalPort: config.INTERNAL_HTTP_PORT }, 'gateway ready');
  onShutdown(logger, async () => {
    await app.close();
    await operations.close();
    await bus.close();
  });
} catch (error) {
  logger.fatal({ err: error }, 'gateway failed to start');
  process.exit(1);
}
