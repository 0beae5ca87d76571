import type { devicePeerInfoRoute, RouteAnswer } from '@qw/contracts';
import { api } from '../../../lib/api-client';

/** GET /api/devices/{id}/peer-info → the server side of the config, for a key the browser holds. */
export type PeerInfo = RouteAnswer<typeof devicePeerInfoRoute>;

export function getPeerInfo(id: string): Promise<PeerInfo> {
  return api.get<PeerInfo>(`/api/devices/${id}/peer-info`);
}
