import type { addAdminEmailRoute, adminEmailsRoute, RouteAnswer } from '@qw/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { adminKey } from './admin-key';
import { auditKey } from './get-audit';

/** GET/POST /api/admin/admin-emails and DELETE /api/admin/admin-emails/{email}: the admin email list (spec §3). */
export type AdminEmails = RouteAnswer<typeof adminEmailsRoute>;
export type AdminEmail = AdminEmails['emails'][number];
export const adminEmailsKey = [...adminKey, 'admin-emails'] as const;

export function getAdminEmails(): Promise<AdminEmails> {
  return api.get<AdminEmails>('/api/admin/admin-emails');
}

export function useAdminEmails() {
  return useQuery({ queryKey: adminEmailsKey, queryFn: getAdminEmails });
}

export function addAdminEmail(email: string): Promise<RouteAnswer<typeof addAdminEmailRoute, 201>> {
  return api.post('/api/admin/admin-emails', { email });
}

export function removeAdminEmail(email: string): Promise<void> {
  return api.delete(`/api/admin/admin-emails/${encodeURIComponent(email)}`);
}

/** Adding or removing is audited: the list and the audit are asked again. */
function useAdminEmailMutation<V>(mutationFn: (value: V) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: adminEmailsKey }),
        queryClient.invalidateQueries({ queryKey: auditKey }),
      ]);
    },
  });
}

export const useAddAdminEmail = () => useAdminEmailMutation(addAdminEmail);
export const useRemoveAdminEmail = () => useAdminEmailMutation(removeAdminEmail);
