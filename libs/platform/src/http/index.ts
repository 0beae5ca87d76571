import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { register } from 'prom-client';
import type { Logger } from 'pino';
import { AppError, httpStatusFor } from '@qw/contracts';
import { buildSerializer, buildValidator } from './schema-compilers.ts';

export type HttpApp = FastifyInstance<any, any, any, FastifyBaseLogger, TypeBoxTypeProvider>;

export type ReadinessCheck = { name: string; check: () => Promise<void> };

export type HttpOptions = {
  logger: Logger;
  readiness: ReadinessCheck[];
  /** Answers requests that match no route (the gateway serves the web app here); default: 404 JSON. */
  notFound?: (request: FastifyRequest, reply: FastifyReply) => unknown;
  /** Extra fastify options (trustProxy, bodyLimit…). */
  fastify?: Omit<FastifyServerOptions, 'logger' | 'loggerInstance'>;
  /**
   * Serve `/healthz`, `/readyz` and `/metrics` (default). The gateway's public app does not:
   * they tell an outsider what runs and how busy it is, so they live on its internal listener.
   */
  operational?: boolean;
};

function errorBody(code: string, message: string, details?: Record<string, unknown>) {
  return { error: { code, message, ...(details ? { details } : {}) } };
}

/**
 * The fastify base every process uses: `/healthz` (the process is up), `/readyz` (its Postgres
 * and NATS really answer), `/metrics` (Prometheus) and one error handler, so every failure
 * leaves as `{ error: { code, message } }` with the status of its code. It never listens.
 */
export function createHttpApp(options: HttpOptions): HttpApp {
  const app = Fastify({
    ...options.fastify,
    loggerInstance: options.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    ajv: {
      customOptions: { allErrors: false, coerceTypes: 'array', removeAdditional: false },
      ...(options.fastify as { ajv?: object })?.ajv,
    },
    // Compiled schemas are kept for the process (schema-compilers.ts).
    schemaController: { compilersFactory: { buildValidator, buildSerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as HttpApp;

  app.addHook('onResponse', async (request, reply) => {
    // Method, route pattern, status and time only: no URL parameters, addresses or headers.
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
  });

  app.setErrorHandler((error: FastifyError | AppError | Error, request, reply) => {
    if (error instanceof AppError) {
      if (error.status >= 500) request.log.warn({ code: error.code, msg: error.message }, 'request failed');
      const message =
        error.status >= 500 && error.code === 'internal'
          ? 'Something went wrong on our side. Please try again.'
          : error.message;
      return reply
        .status(error.status)
        .send(errorBody(error.code, message, error.status < 500 ? error.details : undefined));
    }
    const fastifyError = error as FastifyError;
    if (fastifyError.validation) {
      const first = fastifyError.validation[0];
      const where = fastifyError.validationContext ?? 'request';
      const field = first?.instancePath ? `${where}${first.instancePath.replace(/\//g, '.')}` : where;
      const missing = (first?.params as { missingProperty?: string } | undefined)?.missingProperty;
      const message = missing ? `${field}.${missing} is required.` : `${field} ${first?.message ?? 'is invalid'}.`;
      return reply.status(400).send(errorBody('validation_failed', message));
    }
    const status = fastifyError.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code =
        status === 404
          ? 'not_found'
          : status === 429
            ? 'rate_limited'
            : status === 401
              ? 'not_signed_in'
              : status === 403
                ? 'forbidden'
                : 'bad_request';
      return reply.status(status).send(errorBody(code, fastifyError.message));
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send(errorBody('internal', 'Something went wrong on our side. Please try again.'));
  });

  app.setNotFoundHandler(options.notFound ?? ((request, reply) => notFound(request, reply)));

  if (options.operational !== false) addOperationalRoutes(app, options.readiness);
  return app;
}

function addOperationalRoutes(app: HttpApp, readiness: ReadinessCheck[]): void {
  app.get('/healthz', { logLevel: 'silent' }, async () => ({ status: 'ok' }));

  app.get('/readyz', { logLevel: 'silent' }, async (_request, reply) => {
    const results = await Promise.all(
      readiness.map(async ({ name, check }) => {
        try {
          await withTimeout(check(), 2000);
          return [name, 'ok'] as const;
        } catch {
          return [name, 'failing'] as const;
        }
      }),
    );
    const checks = Object.fromEntries(results);
    const ready = results.every(([, state]) => state === 'ok');
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks });
  });

  app.get('/metrics', { logLevel: 'silent' }, async (_request, reply) => {
    reply.header('content-type', register.contentType);
    return register.metrics();
  });
}

export function notFound(request: FastifyRequest, reply: FastifyReply) {
  return reply.status(404).send(errorBody('not_found', `No route for ${request.method} ${request.url.split('?')[0]}.`));
}

export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new AppError('timeout', `no answer in ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

export { httpStatusFor };
