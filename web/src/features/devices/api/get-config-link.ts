import type { configLinkRoute, RouteAnswer } from '@qw/contracts';
import { api } from '../../../lib/api-client';

/**
 * POST /api/devices/{id}/config-link → addresses of the config file and its QR image that work for
 * 60 s without a token (a new tab or an <img> carries none).
 */
export type ConfigLink = RouteAnswer<typeof configLinkRoute>;

export function getConfigLink(id: string): Promise<ConfigLink> {
  return api.post<ConfigLink>(`/api/devices/${id}/config-link`, {});
}
