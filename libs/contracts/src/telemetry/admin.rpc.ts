import { Type } from 'typebox';
import { defineRpc } from '../rpc.ts';
import {
  AdminNodeSummarySchema,
  AdminTelemetryQuerySchema,
  AdminTelemetryRowSchema,
  ServerHistorySchema,
  ServerMetricsSchema,
  TrafficHourSchema,
} from '../http/admin.http.ts';

/** The operator console's questions to telemetry (platform admins only: `requireAdmin` first). */
const Uuid = Type.String({ format: 'uuid' });
const Count = Type.Integer({ minimum: 0 });

/**
 * Devices connected now and the last 24 hours of traffic (24 hourly buckets, oldest first, empty
 * hours 0). `exclude_test`: the test accounts' devices left out of both (telemetry asks identity who
 * they are).
 */
export const adminTrafficRpc = defineRpc(
  'telemetry.rpc.admin-traffic',
  Type.Object({ exclude_test: Type.Optional(Type.Boolean()) }),
  Type.Object({ active_devices: Count, traffic: Type.Array(TrafficHourSchema, { minItems: 24, maxItems: 24 }) }),
);
/** The latest row per device, paged and sortable, with a summary per node. */
export const adminLatestRpc = defineRpc(
  'telemetry.rpc.admin-latest',
  AdminTelemetryQuerySchema,
  Type.Object({
    rows: Type.Array(AdminTelemetryRowSchema),
    total: Count,
    page: Type.Integer({ minimum: 1 }),
    per_page: Count,
    nodes: Type.Array(AdminNodeSummarySchema),
  }),
);
/**
 * Per node: devices connected now and the latest host metrics within 300 s (or null). Service to
 * service. `exclude_user_ids`: those people's devices are not counted as connected (the test
 * accounts, which provisioning has asked identity for).
 */
export const adminNodeStatsRpc = defineRpc(
  'telemetry.rpc.admin-node-stats',
  Type.Object({
    node_ids: Type.Array(Uuid, { maxItems: 1000 }),
    exclude_user_ids: Type.Optional(Type.Array(Uuid, { maxItems: 1000 })),
  }),
  Type.Object({
    nodes: Type.Array(
      Type.Object({
        node_id: Uuid,
        connected: Count,
        metrics: Type.Union([ServerMetricsSchema, Type.Null()]),
      }),
    ),
  }),
);
/** One server's last 24 hours of host metrics in 5-minute buckets (`not_found` for a node telemetry never heard of). */
export const adminServerHistoryRpc = defineRpc(
  'telemetry.rpc.admin-server-history',
  Type.Object({ node_id: Type.String({ maxLength: 64 }) }),
  ServerHistorySchema,
);
