import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { scrub, scrubString } from './scrub.ts';

export type { Logger } from 'pino';
export { scrub, scrubString } from './scrub.ts';

export type LoggerSettings = { service: string; level?: string; destination?: DestinationStream };

/**
 * A pino logger that never writes personal data or secrets: every log object and message goes
 * through `scrub` (request objects included, since fastify's serializers run first).
 */
export function createLogger({ service, level = 'info', destination }: LoggerSettings): Logger {
  const options: LoggerOptions = {
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: {
      err: (error: unknown) => scrub(error),
      error: (error: unknown) => scrub(error),
    },
    formatters: {
      log: (object) => scrub(object) as Record<string, unknown>,
    },
    hooks: {
      logMethod(args, method) {
        const scrubbed = args.map((arg) => (typeof arg === 'string' ? scrubString(arg) : arg)) as Parameters<
          typeof method
        >;
        method.apply(this, scrubbed);
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
