import { authorityRpc } from '@qw/contracts';
import { endpoint, type RpcEndpoint } from '@qw/platform/bus';
import type { Kysely } from 'kysely';
import type { IdentityDatabase } from '../database.ts';
import { readAuthority } from '../accounts/read-authority.ts';

/** A person's rights now, for the gateway's caller assertion (only the gateway may ask). */
export function authorityEndpoint(db: Kysely<IdentityDatabase>): RpcEndpoint {
  return endpoint(authorityRpc, ({ user_id, session_id }) => readAuthority(db, user_id, session_id));
}
