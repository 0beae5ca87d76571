import { describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { ConfigError, commonEnv, databaseEnv, httpEnv, loadConfig } from '../src/config/index.ts';

const schema = Type.Object({
  ...commonEnv,
  ...databaseEnv,
  ...httpEnv(3001),
  STRIPE_SECRET_KEY: Type.Optional(Type.String()),
});

describe('loadConfig', () => {
  it('names every missing variable, one line each', () => {
    let error: unknown;
    try {
      loadConfig(schema, {});
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toContain('NATS_URL is required but not set');
    expect(problems).toContain('DATABASE_URL is required but not set');
    expect(problems).toHaveLength(2);
    expect((error as ConfigError).message.split('\n')).toHaveLength(3);
  });

  it('names malformed variables next to missing ones', () => {
    expect(() =>
      loadConfig(schema, { NATS_URL: 'nats://127.0.0.1:4222', HTTP_PORT: 'eighty', LOG_LEVEL: 'loud' }),
    ).toThrow(ConfigError);
    try {
      loadConfig(schema, { NATS_URL: 'nats://127.0.0.1:4222', HTTP_PORT: 'eighty', LOG_LEVEL: 'loud' });
    } catch (error) {
      const problems = (error as ConfigError).problems;
      expect(problems.some((p) => p.startsWith('HTTP_PORT is invalid'))).toBe(true);
      expect(problems.some((p) => p.startsWith('LOG_LEVEL is invalid'))).toBe(true);
      expect(problems).toContain('DATABASE_URL is required but not set');
    }
  });

  it('converts, defaults and freezes a valid environment; empty strings count as unset', () => {
    const config = loadConfig(schema, {
      NATS_URL: 'nats://127.0.0.1:4222',
      DATABASE_URL: 'postgres://qw@127.0.0.1/qw',
      HTTP_PORT: '4100',
      STRIPE_SECRET_KEY: '',
    });
    expect(config.HTTP_PORT).toBe(4100);
    expect(config.LOG_LEVEL).toBe('info');
    expect(config.BUS_NAMESPACE).toBe('');
    expect(config.STRIPE_SECRET_KEY).toBeUndefined();
    expect(Object.isFrozen(config)).toBe(true);
  });
});
