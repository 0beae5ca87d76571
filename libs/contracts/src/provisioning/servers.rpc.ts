import { Type, type Static } from 'typebox';
import { PublicRegionSchema } from '../http/servers.http.ts';
import { defineRpc } from '../rpc.ts';
import { RegionIdSchema } from './provisioning.rpc.ts';

/**
 * The public /servers list (issue #23): regions and cities with live status, from provisioning's
 * nodes; asked without a caller (the page is public) and answered with no address, host name or
 * count of people.
 */
export const publicServersRpc = defineRpc(
  'provisioning.rpc.public-servers',
  Type.Object({}),
  Type.Object({ regions: Type.Array(PublicRegionSchema) }),
);

/**
 * The connection check (issue #25): each enrolled node's egress addresses (where its tunnel traffic
 * leaves for the internet) with what the check tells a person who came from one: the server's
 * name, city and region and its resolver addresses. Asked without a caller; the gateway compares
 * the request's source with these itself, so no visitor's address ever leaves the gateway.
 */
export const EgressServerSchema = Type.Object({
  egress: Type.Array(Type.String()),
  name: Type.String(),
  city: Type.Union([Type.String(), Type.Null()]),
  region: RegionIdSchema,
  /** The node's own resolver (its tunnel addresses): the DNS of a config on it without blocking. */
  resolvers: Type.Array(Type.String()),
});
export type EgressServer = Static<typeof EgressServerSchema>;
export const egressServersRpc = defineRpc(
  'provisioning.rpc.egress-servers',
  Type.Object({}),
  Type.Object({ servers: Type.Array(EgressServerSchema) }),
);
