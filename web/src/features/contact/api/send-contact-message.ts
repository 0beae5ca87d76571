import type { contactRoute, RouteAnswer, RouteBody } from '@qw/contracts';
import { useMutation } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** POST /api/contact: 201 { id }; 400 validation_failed (details.field), 429 rate_limited. */
export type ContactMessageBody = RouteBody<typeof contactRoute>;
export type ContactMessageReceipt = RouteAnswer<typeof contactRoute, 201>;

export const sendContactMessageKey = ['contact', 'send-message'] as const;

export function sendContactMessage(body: ContactMessageBody): Promise<ContactMessageReceipt> {
  return api.post<ContactMessageReceipt>('/api/contact', body);
}

export function useSendContactMessage() {
  return useMutation({ mutationKey: sendContactMessageKey, mutationFn: sendContactMessage });
}
