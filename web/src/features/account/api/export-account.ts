import type { AccountExport, exportAccountRoute, RouteAnswer } from '@qw/contracts';
import { useMutation } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { meKey } from '../../../lib/auth/api/get-me';

/** GET /api/me/export → everything held about the signed-in person, as JSON (no private key). */
export const exportAccountKey = [...meKey, 'export'] as const;

export function exportAccount(): Promise<RouteAnswer<typeof exportAccountRoute>> {
  return api.get<RouteAnswer<typeof exportAccountRoute>>('/api/me/export');
}

/** The file the browser saves: the export as readable JSON, named with the day it was made. */
export function saveExport(data: AccountExport): void {
  const text = `${JSON.stringify(data, null, 2)}\n`;
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = `quietwire-data-${data.exported_at.slice(0, 10)}.json`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A mutation rather than a query: the export is made when asked for, never cached. */
export function useExportAccount() {
  return useMutation({ mutationKey: exportAccountKey, mutationFn: exportAccount, onSuccess: saveExport });
}
