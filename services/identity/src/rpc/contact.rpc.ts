import { submitContactRpc } from '@qw/contracts';
import { endpoint, type RpcEndpoint } from '@qw/platform/bus';
import type { ContactService } from '../contact/contact.service.ts';

export function contactEndpoints(contact: ContactService): RpcEndpoint[] {
  return [endpoint(submitContactRpc, (data) => contact.submit(data))];
}
