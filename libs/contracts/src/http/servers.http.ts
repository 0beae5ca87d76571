import { Type, type Static } from 'typebox';
import { RegionIdSchema } from '../provisioning/provisioning.rpc.ts';
import { defineRoute } from './route.ts';

/**
 * The fleet as the public sees it (issue #23): regions and cities with live status, from the data
 * the console's Servers page shows; and a host's enrolment, where a one-time token from the
 * console is exchanged for the node's own bus credentials.
 */
const tags = ['servers'];

export const LoadLevelSchema = Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')]);
export const PublicCitySchema = Type.Object({
  city: Type.String(),
  /** `up` while at least one of its servers reports and takes devices; `down` otherwise. */
  status: Type.Union([Type.Literal('up'), Type.Literal('down')]),
  load: LoadLevelSchema,
  /** Gaming-optimised routes are here (a server tagged `gaming`). */
  gaming: Type.Boolean(),
});
export const PublicRegionSchema = Type.Object({
  id: RegionIdSchema,
  label: Type.String(),
  cities: Type.Array(PublicCitySchema),
});
export type PublicRegion = Static<typeof PublicRegionSchema>;
export const publicServersRoute = defineRoute({
  operationId: 'publicServers',
  method: 'GET',
  url: '/api/servers',
  access: 'public',
  tags,
  summary: 'Regions and cities with live status (up; load low/medium/high); no addresses, no names of hosts',
  response: { 200: Type.Object({ regions: Type.Array(PublicRegionSchema) }) },
});

export const EnrolBodySchema = Type.Object(
  {
    token: Type.String({ minLength: 20, maxLength: 200 }),
    agent_version: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);
/** What the host needs to come up as the node: who it is, where it serves, and its bus credentials. */
export const EnrolmentAnswerSchema = Type.Object({
  node: Type.Object({
    name: Type.String(),
    region: RegionIdSchema,
    city: Type.Union([Type.String(), Type.Null()]),
    endpoint: Type.String(),
    listen_port: Type.Integer({ minimum: 1, maximum: 65535 }),
    tags: Type.Array(Type.String()),
    ip: Type.String(),
  }),
  bus: Type.Object({
    /** NATS server URLs, comma-separated, as NATS_URL takes them. */
    url: Type.String(),
    /** The node's own user (JWT and seed), scoped to its subjects: the content of NATS_CREDS. */
    creds: Type.String(),
    /** The bus's CA certificate (PEM) when the bus speaks TLS, for NATS_CA_FILE. */
    ca: Type.Union([Type.String(), Type.Null()]),
    /** The bus namespace (BUS_NAMESPACE), empty in production. */
    namespace: Type.String(),
  }),
});
export type EnrolmentAnswer = Static<typeof EnrolmentAnswerSchema>;
export const enrolNodeRoute = defineRoute({
  operationId: 'enrolNode',
  method: 'POST',
  url: '/api/nodes/enrol',
  access: 'public',
  tags,
  summary: 'A host exchanges its one-time enrolment token for the node’s bus credentials; a second use is refused',
  body: EnrolBodySchema,
  response: { 200: EnrolmentAnswerSchema },
});

/**
 * "Am I protected?" over HTTPS (issue #25): whether this request reached us from a Quietwire
 * server's egress address, that is through one of our tunnels, and which server. It names the
 * server, never a device: many devices leave through one address. Nothing of the request's
 * address is kept or logged.
 */
export const ConnectionCheckAnswerSchema = Type.Object({
  /** True when the request's source address is an enrolled server's egress address. */
  protected: Type.Boolean(),
  /** The server it came through; null when not protected. */
  server: Type.Union([
    Type.Object({
      name: Type.String(),
      city: Type.Union([Type.String(), Type.Null()]),
      region: RegionIdSchema,
    }),
    Type.Null(),
  ]),
  /** That server's own resolver addresses (the DNS of a config on it without blocking); empty when not protected. */
  resolvers: Type.Array(Type.String()),
});
export type ConnectionCheckAnswer = Static<typeof ConnectionCheckAnswerSchema>;
export const connectionCheckRoute = defineRoute({
  operationId: 'connectionCheck',
  method: 'GET',
  url: '/api/connection-check',
  access: 'public',
  tags,
  summary:
    'Whether this request came through a Quietwire server (its egress address), and which server; names no device',
  response: { 200: ConnectionCheckAnswerSchema },
});

export const serverRoutes = [publicServersRoute, enrolNodeRoute, connectionCheckRoute];
