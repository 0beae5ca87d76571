import type { Receipt } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { billingKey } from './get-billing';

/** GET /api/billing/invoices/{id} → one invoice as its receipt shows it (its person; an organization's owners and admins). */
export function receiptQueryKey(invoiceId: string) {
  return [...billingKey, 'receipt', invoiceId] as const;
}

export function getReceipt(invoiceId: string): Promise<Receipt> {
  return api.get<Receipt>(`/api/billing/invoices/${encodeURIComponent(invoiceId)}`);
}

export function useReceipt(invoiceId: string) {
  return useQuery({ queryKey: receiptQueryKey(invoiceId), queryFn: () => getReceipt(invoiceId), retry: false });
}
