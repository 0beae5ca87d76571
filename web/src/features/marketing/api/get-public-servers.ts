import type { publicServersRoute, RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** GET /api/servers: regions and cities with live status, from the data the console's Servers page shows. */
export type PublicServers = RouteAnswer<typeof publicServersRoute>;
export type PublicRegion = PublicServers['regions'][number];
export type PublicCity = PublicRegion['cities'][number];
export const publicServersKey = ['public-servers'] as const;

/** How often the page asks again (issue #23: live status). */
export const publicServersRefreshMs = 30_000;

export function getPublicServers(): Promise<PublicServers> {
  return api.get<PublicServers>('/api/servers');
}

export function usePublicServers() {
  return useQuery({
    queryKey: publicServersKey,
    queryFn: getPublicServers,
    refetchInterval: publicServersRefreshMs,
    staleTime: publicServersRefreshMs,
  });
}
