import type { adminPersonRoute, RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { adminKey } from './admin-key';

/** GET /api/admin/users/{id}: one person's page (profile, plan, organizations, devices, invoices, sessions, audit). */
export type AdminPerson = RouteAnswer<typeof adminPersonRoute>;
export const personKey = (id: string) => [...adminKey, 'person', id] as const;

export function getPerson(id: string): Promise<AdminPerson> {
  return api.get<AdminPerson>(`/api/admin/users/${encodeURIComponent(id)}`);
}

export function usePerson(id: string) {
  // A missing person stays missing: no retries of a 404.
  return useQuery({ queryKey: personKey(id), queryFn: () => getPerson(id), retry: false });
}
