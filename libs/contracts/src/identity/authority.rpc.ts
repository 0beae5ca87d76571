import { Type, type Static } from 'typebox';
import { defineRpc } from '../rpc.ts';

/**
 * Service to service (only the gateway asks; NATS permissions say so): a person's rights as the
 * database says now, for the caller assertion the gateway signs. An access token lives 15 minutes;
 * this answer, cached by the gateway for at most a second, is what makes a removed admin (or an
 * account that is gone) lose its rights on the next request instead.
 *
 * `is_admin` assumes the session passed the second factor where one is on: only the access token
 * knows whether it did (its admin claim required it), so the gateway grants admin only when both
 * say so.
 */
export const AuthoritySchema = Type.Object({
  /** False: the account no longer exists, or the session asked about has ended; its tokens are refused. */
  active: Type.Boolean(),
  is_admin: Type.Boolean(),
  email_verified: Type.Boolean(),
  account_type: Type.Union([Type.String(), Type.Null()]),
  /**
   * The organizations the person belongs to now, with their role in each: the route table decides
   * an organization route's access from this (404 to outsiders, 403 to a member where only owners
   * and admins may), and refuses only on an answer asked for that request.
   */
  organizations: Type.Array(
    Type.Object({
      id: Type.String({ format: 'uuid' }),
      role: Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')]),
    }),
  ),
});
export type Authority = Static<typeof AuthoritySchema>;

export const authorityRpc = defineRpc(
  'identity.rpc.authority',
  Type.Object({
    user_id: Type.String({ format: 'uuid' }),
    /** The access token's session: once it has ended (signed out, or ended by an operator), the answer is not active. */
    session_id: Type.Optional(Type.String({ format: 'uuid' })),
  }),
  AuthoritySchema,
);
