import { describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import Fastify from 'fastify';
import {
  adminDevicesRoute,
  adminDevicesRpc,
  anonymousCaller,
  type HttpRoute,
  type RpcContract,
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

/** Registration asks nothing: a client that fails if it is asked. */
const notAsked = {
  forward: async (): Promise<ForwardedAnswer> => {
    throw new Error('asked at registration');
  },
};

describe('forwarded answers', () => {
  it('refuses, when the route is registered, a contract not marked forwarded or a schema other than the route’s', () => {
    expect(() => forwardedAnswers(route, defineRpc('probe.rpc.seats', Type.Object({}), Answer), notAsked)).toThrow(
      /not a forwarded contract/,
    );
    // One more field in the contract's answer than the route declares: the browser would get it.
    const wider = Type.Object({ ...Answer.properties, owner_email: Type.String() });
    expect(() =>
      forwardedAnswers(route, defineRpc('probe.rpc.seats', Type.Object({}), wider, { forwarded: true }), notAsked),
    ).toThrow(/is not probe.rpc.seats's response schema/);
    // The same shape built again is the same schema.
    const same = Type.Object({ seats: Type.Array(Type.Object({ id: Type.Integer() })), total: Type.Integer() });
    expect(() =>
      forwardedAnswers(route, defineRpc('probe.rpc.seats', Type.Object({}), same, { forwarded: true }), notAsked),
    ).not.toThrow();
  });

  it('the forwarded routes answer with their contracts’ own schemas', () => {
    for (const [httpRoute, contract] of [
      [listDevicesRoute, listDevicesRpc],
      [deviceOverviewRoute, deviceOverviewRpc],
      [orgDevicesRoute, listOrgDevicesRpc],
      [adminDevicesRoute, adminDevicesRpc],
    ] as Array<[HttpRoute, RpcContract]>)
      expect(() => forwardedAnswers(httpRoute, contract, notAsked)).not.toThrow();
  });

  it('sends the answer’s bytes as JSON, not written again through the route’s schema', async () => {
    const app = Fastify();
    // Bytes the route's serialiser would not write (the spacing): they reach the browser as they came.
    const json = '{"seats":[{"id":1}],  "total":1}';
    const send = forwardedAnswers(route, defineRpc('probe.rpc.seats', Type.Object({}), Answer, { forwarded: true }), {
      forward: async () => new ForwardedAnswer(json),
    });
    app.get('/api/probe/seats', { schema: { response: { 200: Answer } } }, async (_request, reply) =>
      send(reply, {}, anonymousCaller),
    );
    const answer = await app.inject({ method: 'GET', url: '/api/probe/seats' });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.body).toBe(json);
    await app.close();
  });
});
