import type { markTestAccountRoute, RouteAnswer } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { adminKey } from './admin-key';

/** POST /api/admin/users/{id}/test-account `{is_test}` (issue #26): mark or unmark a test account; audited. */
export type TestAccountAnswer = RouteAnswer<typeof markTestAccountRoute>;

export function setTestAccount(id: string, isTest: boolean): Promise<TestAccountAnswer> {
  return api.post<TestAccountAnswer>(`/api/admin/users/${encodeURIComponent(id)}/test-account`, { is_test: isTest });
}

/** Every console figure and list may change with it, so the console's queries are asked again. */
export function useSetTestAccount(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (isTest: boolean) => setTestAccount(id, isTest),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKey }),
  });
}
