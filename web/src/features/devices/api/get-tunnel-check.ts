import { type TunnelCheckAnswer, tunnelCheckUrl } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';

/**
 * "Am I protected?" (issue #25): asks the tunnel-only address every node answers on, directly
 * (not through our API: only a request through the tunnel can reach it). Null when nothing
 * answered within 2.5 s: no tunnel, or the browser blocked it (an HTTPS page asking http://).
 */
export async function getTunnelCheck(url: string = tunnelCheckUrl): Promise<TunnelCheckAnswer | null> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2500), cache: 'no-store', credentials: 'omit' });
    if (!response.ok) return null;
    return (await response.json()) as TunnelCheckAnswer;
  } catch {
    return null;
  }
}

/** `enabled`: false on an HTTPS page, where browsers block the request anyway (the gateway's check answers there). */
export function useTunnelCheck(enabled = true) {
  return useQuery({
    queryKey: ['tunnel-check'],
    queryFn: () => getTunnelCheck(),
    enabled,
    refetchInterval: 30_000,
    retry: false,
  });
}
