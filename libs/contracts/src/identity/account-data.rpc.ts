import { Type, type Static } from 'typebox';
import { defineRpc } from '../rpc.ts';

const Uuid = Type.String({ format: 'uuid' });
const When = Type.String({ description: 'ISO 8601' });
const Empty = Type.Object({});

/** What identity holds about the caller, for their export: the account, memberships, audit entries. */
export const IdentityAccountDataSchema = Type.Object({
  account: Type.Object({
    id: Uuid,
    email: Type.String(),
    full_name: Type.Union([Type.String(), Type.Null()]),
    avatar_url: Type.Union([Type.String(), Type.Null()]),
    account_type: Type.String(),
    created_at: When,
    email_verified: Type.Boolean(),
    email_verified_at: Type.Union([When, Type.Null()]),
    two_factor: Type.Boolean(),
  }),
  organizations: Type.Array(Type.Object({ id: Uuid, name: Type.String(), role: Type.String(), joined_at: When })),
  /** Entries of organizations' audit logs the caller did, or that were about them. */
  audit: Type.Array(
    Type.Object({
      organization_id: Uuid,
      at: When,
      kind: Type.String(),
      actor_name: Type.Union([Type.String(), Type.Null()]),
      target_kind: Type.Union([Type.String(), Type.Null()]),
      target_name: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});
export type IdentityAccountData = Static<typeof IdentityAccountDataSchema>;

export const exportIdentityDataRpc = defineRpc('identity.rpc.export-account', Empty, IdentityAccountDataSchema);

/**
 * Deletes the caller's account, with their password: refused while they are the last owner of an
 * organization that has other members or a plan (they transfer it or cancel first).
 */
export const deleteAccountRpc = defineRpc(
  'identity.rpc.delete-account',
  Type.Object({ password: Type.String({ maxLength: 1024 }) }),
  Type.Object({ deleted_at: When }),
);
