import { describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import Fastify from 'fastify';
import {
  adminDevicesRoute,
  adminDevicesRpc,
  defineRoute,
  defineRpc,
  deviceOverviewRoute,
  deviceOverviewRpc,
  listDevicesRoute,
  listDevicesRpc,
  listOrgDevicesRpc,
  orgDevicesRoute,
} from '@qw/contracts';
import { ForwardedAnswer } from '@qw/platform';
import { forwardedAnswers } from '../src/http/forwarded.ts';

const Answer = Type.Object({ seats: Type.Array(Type.Object({ id: Type.Integer() })), total: Type.Integer() });
const route = defineRoute({
  operationId: 'probeSeats',
  method: 'GET',
  url: '/api/probe/seats',
  access: 'signed-in',
  tags: ['probe'],
  summary: 'probe',
  response: { 200: Answer },
});

describe('forwarded answers', () => {
  it('refuses, when the route is registered, a contract not marked forwarded or a schema other than the route’s', () => {
    expect(() => forwardedAnswers(route, defineRpc('probe.rpc.seats', Type.Object({}), Answer))).toThrow(
      /not a forwarded contract/,
    );
    // One more field in the contract's answer than the route declares: the browser would get it.
    const wider = Type.Object({ ...Answer.properties, owner_email: Type.String() });
    expect(() =>
      forwardedAnswers(route, defineRpc('probe.rpc.seats', Type.Object({}), wider, { forwarded: true })),
    ).toThrow(/is not probe.rpc.seats's response schema/);
    // The same shape built again is the same schema.
    const same = Type.Object({ seats: Type.Array(Type.Object({ id: Type.Integer() })), total: Type.Integer() });
    expect(() =>
      forwardedAnswers(route, defineRpc('probe.rpc.seats', Type.Object({}), same, { forwarded: true })),
    ).not.toThrow();
  });

  it('the forwarded routes answer with their contracts’ own schemas', () => {
    for (const [httpRoute, contract] of [
      [listDevicesRoute, listDevicesRpc],
      [deviceOverviewRoute, deviceOverviewRpc],
      [orgDevicesRoute, listOrgDevicesRpc],
      [adminDevicesRoute, adminDevicesRpc],
    ] as const)
      expect(() => forwardedAnswers(httpRoute, contract)).not.toThrow();
  });

  it('sends the answer’s bytes as JSON, not written again through the route’s schema', async () => {
    const app = Fastify();
    const send = forwardedAnswers(route, defineRpc('probe.rpc.seats', Type.Object({}), Answer, { forwarded: true }));
    // Bytes the route's serialiser would not write (the spacing): they reach the browser as they came.
    const json = '{"seats":[{"id":1}],  "total":1}';
    app.get('/api/probe/seats', { schema: { response: { 200: Answer } } }, async (_request, reply) =>
      send(reply, new ForwardedAnswer(json)),
    );
    const answer = await app.inject({ method: 'GET', url: '/api/probe/seats' });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.body).toBe(json);
    await app.close();
  });
});
