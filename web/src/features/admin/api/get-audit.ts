import type { adminAuditRoute, RouteAnswer, RouteQuery } from '@qw/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { adminKey } from './admin-key';

/** GET /api/admin/audit?per_page=&before=: the operators' own actions (accounts and fleet), newest first. */
export type AdminAuditPage = RouteAnswer<typeof adminAuditRoute>;
export type AdminAuditEntry = AdminAuditPage['rows'][number];
export type AdminAuditQuery = RouteQuery<typeof adminAuditRoute>;
export const auditKey = [...adminKey, 'audit'] as const;

export function getAudit(query: AdminAuditQuery): Promise<AdminAuditPage> {
  return api.get<AdminAuditPage>('/api/admin/audit', { query });
}

export function useAudit(query: AdminAuditQuery) {
  return useQuery({
    queryKey: [...auditKey, query],
    queryFn: () => getAudit(query),
    placeholderData: keepPreviousData,
  });
}
