import type { myOrganizationsRoute, OrganizationView, RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** GET /api/orgs → the signed-in person's organizations with their role in each and the member count. */
export type Organization = OrganizationView;

export const organizationsKey = ['organizations'] as const;

export async function getOrganizations(): Promise<Organization[]> {
  const answer = await api.get<RouteAnswer<typeof myOrganizationsRoute>>('/api/orgs');
  return answer.organizations;
}

export function useOrganizations() {
  return useQuery({ queryKey: organizationsKey, queryFn: getOrganizations });
}
