import type { adminServersRoute, RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { adminKey } from './admin-key';

/** GET /api/admin/servers: one entry per node with its latest metrics within 300 s. */
export type AdminServers = RouteAnswer<typeof adminServersRoute>;
export type AdminServer = AdminServers['servers'][number];
export const serversKey = [...adminKey, 'servers'] as const;

export function getServers(): Promise<AdminServers> {
  return api.get<AdminServers>('/api/admin/servers');
}

/** Metrics arrive every minute or so; the cards follow by themselves. */
export function useServers() {
  return useQuery({ queryKey: serversKey, queryFn: getServers, refetchInterval: 30_000 });
}
