import type { ConnectionCheckAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/**
 * "Am I protected?" over HTTPS (issue #25): GET /api/connection-check, where the gateway compares
 * the request's source with the servers' egress addresses. Null when the check did not answer.
 */
export async function getConnectionCheck(): Promise<ConnectionCheckAnswer | null> {
  try {
    return await api.get<ConnectionCheckAnswer>('/api/connection-check');
  } catch {
    return null;
  }
}

export function useConnectionCheck() {
  return useQuery({
    queryKey: ['connection-check'],
    queryFn: getConnectionCheck,
    refetchInterval: 30_000,
    retry: false,
  });
}
