import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { createHttpApp, createLogger } from '../src/index.ts';

/**
 * Route schemas are compiled once per process (src/http/schema-compilers.ts): a second app with
 * the same route checks and writes with the first app's functions, and still checks and writes.
 */
const Body = Type.Object({ name: Type.String({ minLength: 1 }) });
const Answer = Type.Object({ name: Type.String() });

type Seen = { validate: unknown; serialize: unknown };

function appWith(body: object, answer: object, seen: Seen[]) {
  const app = createHttpApp({ logger: createLogger({ service: 'compilers', level: 'silent' }), readiness: [] });
  app.route({
    method: 'POST',
    url: '/things',
    schema: { body, response: { 200: answer } },
    handler: async (request, reply) => {
      seen.push({ validate: request.getValidationFunction('body'), serialize: reply.getSerializationFunction('200') });
      return reply.send({ name: (request.body as { name: string }).name, secret: 'never sent' });
    },
  });
  return app;
}

describe('route schemas compiled once per process', () => {
  it("a second app's route uses the first's checks and writers, which still refuse and leave out", async () => {
    const seen: Seen[] = [];
    const apps = [appWith(Body, Answer, seen), appWith(Body, Answer, seen)];
    for (const app of apps) {
      const ok = await app.inject({ method: 'POST', url: '/things', payload: { name: 'laptop' } });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ name: 'laptop' });
      const refused = await app.inject({ method: 'POST', url: '/things', payload: { name: '' } });
      expect(refused.statusCode).toBe(400);
      await app.close();
    }
    expect(seen).toHaveLength(2);
    expect(typeof seen[0]!.validate).toBe('function');
    expect(seen[1]!.validate).toBe(seen[0]!.validate);
    expect(seen[1]!.serialize).toBe(seen[0]!.serialize);
  });

  it('a schema that is another object, even alike, is compiled for itself', async () => {
    const seen: Seen[] = [];
    const apps = [
      appWith(Body, Answer, seen),
      appWith(Type.Object({ name: Type.String({ maxLength: 3 }) }), Type.Object({ secret: Type.String() }), seen),
    ];
    const answers = [];
    for (const app of apps) {
      answers.push((await app.inject({ method: 'POST', url: '/things', payload: { name: 'laptop' } })).json());
      await app.close();
    }
    expect(answers).toEqual([{ name: 'laptop' }, { error: expect.objectContaining({ code: 'validation_failed' }) }]);
    expect(seen).toHaveLength(1);
    const third: Seen[] = [];
    const alike = appWith({ ...Body }, { ...Answer }, third);
    await alike.inject({ method: 'POST', url: '/things', payload: { name: 'laptop' } });
    await alike.close();
    expect(third[0]!.validate).not.toBe(seen[0]!.validate);
    expect(third[0]!.serialize).not.toBe(seen[0]!.serialize);
  });
});
