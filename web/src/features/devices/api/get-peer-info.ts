import { api } from '../../../lib/api-client';

/** GET /api/devices/{id}/peer-info → the server side of the config, for a key the browser holds. */
export type PeerInfo = { file_name: string; addresses: string[]; dns: string[]; server_public_key: string; endpoint: string };

export function getPeerInfo(id: string): Promise<PeerInfo> {
  return api.get<PeerInfo>(`/api/devices/${id}/peer-info`);
}
