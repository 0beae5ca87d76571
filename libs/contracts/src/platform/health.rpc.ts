import { Type } from 'typebox';
import { defineRpc } from '../rpc.ts';
import type { BackendService } from '../services.ts';

export const HealthResponseSchema = Type.Object({
  service: Type.String(),
  uptimeSeconds: Type.Number({ minimum: 0 }),
  database: Type.Literal('ok'),
});

/** Every backend service answers `<service>.rpc.health` after checking its own database. */
export function healthRpc(service: BackendService) {
  return defineRpc(`${service}.rpc.health`, Type.Object({}), HealthResponseSchema);
}
