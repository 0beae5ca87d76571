import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@qw/platform/logger';

export type CapturedLogs = { logger: Logger; lines: Array<Record<string, unknown>>; text(): string };

/** A real platform logger (with its redaction) whose output the test can read. */
export function captureLogs(service = 'test', level = 'debug'): CapturedLogs {
  const lines: Array<Record<string, unknown>> = [];
  let raw = '';
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      const text = chunk.toString();
      raw += text;
      for (const line of text.split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  return { logger: createLogger({ service, level, destination }), lines, text: () => raw };
}
