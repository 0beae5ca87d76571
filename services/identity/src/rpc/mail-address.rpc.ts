import { AppError, mailAddressRpc } from '@qw/contracts';
import { endpoint, type RpcEndpoint } from '@qw/platform/bus';
import type { Kysely } from 'kysely';
import type { IdentityDatabase } from '../database.ts';
import { findUserById } from '../accounts/accounts.repository.ts';

/** Where to mail a person, for services' queued mail (only services NATS lets ask, never the gateway). */
export function mailAddressEndpoint(db: Kysely<IdentityDatabase>): RpcEndpoint {
  return endpoint(mailAddressRpc, async ({ user_id }) => {
    const user = await findUserById(db, user_id);
    if (!user) throw new AppError('not_found', 'No such person.');
    return { email: user.email, verified: user.email_verified_at !== null };
  });
}
