import type { RouteAnswer, serverHistoryRoute } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { serversKey } from './get-servers';

/** GET /api/admin/servers/:id/history: one server's last 24 hours in 5-minute buckets. */
export type ServerHistory = RouteAnswer<typeof serverHistoryRoute>;
export type ServerHistoryBucket = ServerHistory['buckets'][number];

export function getServerHistory(serverId: string): Promise<ServerHistory> {
  return api.get<ServerHistory>(`/api/admin/servers/${encodeURIComponent(serverId)}/history`);
}

/** Asked only while the card's history is open; a new bucket fills every 5 minutes. */
export function useServerHistory(serverId: string) {
  return useQuery({
    queryKey: [...serversKey, serverId, 'history'],
    queryFn: () => getServerHistory(serverId),
    refetchInterval: 60_000,
  });
}
