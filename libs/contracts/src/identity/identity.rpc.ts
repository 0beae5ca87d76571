import { Type, type Static } from 'typebox';
import { defineRpc } from '../rpc.ts';

const Email = Type.String({ minLength: 3, maxLength: 254 });
const Password = Type.String({ maxLength: 1024 });
const Uuid = Type.String({ format: 'uuid' });
/** An HMAC of the client's address made by the gateway; the address itself never leaves it. */
const AddressKey = Type.String({ minLength: 1, maxLength: 128 });

/** What the gateway needs to mint an access token. */
export const SessionUserSchema = Type.Object({
  id: Uuid,
  email: Type.String(),
  account_type: Type.String(),
  role: Type.String(),
  is_admin: Type.Boolean(),
  email_verified: Type.Boolean(),
});
export type SessionUser = Static<typeof SessionUserSchema>;

export const IssuedSessionSchema = Type.Object({
  user: SessionUserSchema,
  refresh_token: Type.String(),
  refresh_expires_at: Type.String({ format: 'date-time' }),
});
export type IssuedSession = Static<typeof IssuedSessionSchema>;

export const SignInResultSchema = Type.Union([
  Type.Object({ status: Type.Literal('signed_in'), session: IssuedSessionSchema }),
  Type.Object({ status: Type.Literal('mfa_required'), mfa_token: Type.String() }),
]);

export const ProfileSchema = Type.Object({
  id: Uuid,
  email: Type.String(),
  full_name: Type.Union([Type.String(), Type.Null()]),
  avatar_url: Type.Union([Type.String(), Type.Null()]),
  account_type: Type.String(),
  role: Type.String(),
});
export type Profile = Static<typeof ProfileSchema>;

export const MeSchema = Type.Object({
  user: Type.Object({ id: Uuid, email: Type.String(), created_at: Type.String() }),
  profile: ProfileSchema,
  role: Type.String(),
  is_admin: Type.Boolean(),
  email_verified: Type.Boolean(),
  mfa_enabled: Type.Boolean(),
  org_member: Type.Boolean(),
});
export type Me = Static<typeof MeSchema>;

const Empty = Type.Object({});

export const signUpRpc = defineRpc('identity.rpc.sign-up', Type.Object({ email: Email, password: Password, address_key: AddressKey }), IssuedSessionSchema);
export const signInRpc = defineRpc('identity.rpc.sign-in', Type.Object({ email: Email, password: Password, address_key: AddressKey }), SignInResultSchema);
export const signInMfaRpc = defineRpc('identity.rpc.sign-in-mfa', Type.Object({ mfa_token: Type.String({ minLength: 1 }), code: Type.String({ minLength: 1, maxLength: 32 }), address_key: AddressKey }), IssuedSessionSchema);
export const refreshRpc = defineRpc('identity.rpc.refresh', Type.Object({ refresh_token: Type.String({ minLength: 1 }) }), IssuedSessionSchema);
export const signOutRpc = defineRpc('identity.rpc.sign-out', Type.Object({ refresh_token: Type.String() }), Empty);
export const verifyEmailRpc = defineRpc('identity.rpc.verify-email', Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }), IssuedSessionSchema);
export const resendVerificationRpc = defineRpc('identity.rpc.resend-verification', Empty, Type.Object({ sent: Type.Boolean() }));
export const forgotPasswordRpc = defineRpc('identity.rpc.forgot-password', Type.Object({ email: Email, address_key: AddressKey }), Empty);
export const resetPasswordRpc = defineRpc('identity.rpc.reset-password', Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }), password: Password }), Empty);
export const getMeRpc = defineRpc('identity.rpc.get-me', Empty, MeSchema);
export const updateProfileRpc = defineRpc('identity.rpc.update-profile', Type.Object({
  full_name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  avatar_url: Type.Optional(Type.Union([Type.String(), Type.Null()])),
}), ProfileSchema);
export const mfaEnrolRpc = defineRpc('identity.rpc.mfa-enrol', Empty, Type.Object({ secret: Type.String(), otpauth_url: Type.String() }));
export const mfaConfirmRpc = defineRpc('identity.rpc.mfa-confirm', Type.Object({ code: Type.String({ minLength: 1, maxLength: 16 }) }), Type.Object({ recovery_codes: Type.Array(Type.String()) }));
export const mfaDisableRpc = defineRpc('identity.rpc.mfa-disable', Type.Object({ code: Type.String({ minLength: 1, maxLength: 32 }) }), Empty);
export const submitContactRpc = defineRpc('identity.rpc.submit-contact', Type.Object({ email: Type.String({ maxLength: 254 }), message: Type.String({ maxLength: 10_000 }), address_key: AddressKey }), Type.Object({ id: Uuid }));

export const OrganizationViewSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  plan: Type.String(),
  is_active: Type.Boolean(),
  created_at: Type.String(),
  role: Type.String(),
  member_count: Type.Integer(),
});
export type OrganizationView = Static<typeof OrganizationViewSchema>;
export const listMyOrgsRpc = defineRpc('identity.rpc.list-my-orgs', Empty, Type.Object({ organizations: Type.Array(OrganizationViewSchema) }));
