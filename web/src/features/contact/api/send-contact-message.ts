import { useMutation } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** POST /api/contact: 201 { id }; 400 validation_failed (details.field), 429 rate_limited. */
export type ContactMessageBody = { email: string; message: string };
export type ContactMessageReceipt = { id: string };

export const sendContactMessageKey = ['contact', 'send-message'] as const;

export function sendContactMessage(body: ContactMessageBody): Promise<ContactMessageReceipt> {
  return api.post<ContactMessageReceipt>('/api/contact', body);
}

export function useSendContactMessage() {
  return useMutation({ mutationKey: sendContactMessageKey, mutationFn: sendContactMessage });
}
