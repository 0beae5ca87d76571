import { Type } from 'typebox';
import { defineRpc } from '../rpc.ts';
import type { BackendService } from '../services.ts';

export const HealthResponseSchema = Type.Object({
  service: Type.String(),
  uptimeSeconds: Type.Number({ minimum: 0 }),
  database: Type.Literal('ok'),
});

const ServiceStatusSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  uptime_seconds: Type.Optional(Type.Number()),
  reason: Type.Optional(Type.String()),
});
/** `GET /api/health`: ok only when every backend service answers a round trip and reached its database. */
export const HealthSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  services: Type.Record(Type.String(), ServiceStatusSchema),
});

/** Every backend service answers `<service>.rpc.health` after checking its own database. */
export function healthRpc(service: BackendService) {
  return defineRpc(`${service}.rpc.health`, Type.Object({}), HealthResponseSchema);
}
