import type { auditLogRoute, RouteAnswer, RouteQuery } from '@qw/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { organizationKey } from './get-organization';

/** GET /api/orgs/{id}/audit?kind&person&before&limit → newest first, with the cursor of the next (older) page. */
export type AuditPage = RouteAnswer<typeof auditLogRoute>;
export type AuditEntry = AuditPage['entries'][number];
export type AuditFilter = Pick<RouteQuery<typeof auditLogRoute>, 'kind' | 'person' | 'before'>;

export const auditPageSize = 25;

export function getAuditLog(orgId: string, filter: AuditFilter): Promise<AuditPage> {
  return api.get<AuditPage>(`/api/orgs/${encodeURIComponent(orgId)}/audit`, {
    query: { ...filter, limit: auditPageSize },
  });
}

export function useAuditLog(orgId: string | null, filter: AuditFilter, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: [...organizationKey(orgId ?? ''), 'audit', filter],
    queryFn: () => getAuditLog(orgId ?? '', filter),
    enabled: orgId !== null && (options.enabled ?? true),
    // The table keeps the page it shows while the next one loads.
    placeholderData: keepPreviousData,
  });
}
