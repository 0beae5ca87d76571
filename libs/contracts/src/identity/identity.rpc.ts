import { Type, type Static } from 'typebox';
import { defineRpc } from '../rpc.ts';
import { ContactBodySchema } from '../http/support.http.ts';

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
  /** The sign-in this session continues (its refresh tokens' family): access tokens carry it, so ending it ends them. */
  session_id: Uuid,
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
  /**
   * Set while the Quietwire operator has suspended the account (issue #26): the reason, in the
   * operator's words, and since when. The person can still sign in, read, pay and export.
   */
  account_suspension: Type.Optional(
    Type.Union([Type.Object({ reason: Type.String(), since: Type.String({ format: 'date-time' }) }), Type.Null()]),
  ),
});
export type Me = Static<typeof MeSchema>;

const Empty = Type.Object({});

/**
 * A new account. With the token of an open invitation mailed to the same address, the address is
 * proven by that mail: the account starts confirmed and no verification mail goes out.
 */
export const signUpRpc = defineRpc(
  'identity.rpc.sign-up',
  Type.Object({
    email: Email,
    password: Password,
    address_key: AddressKey,
    invitation_token: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  }),
  IssuedSessionSchema,
);
/**
 * The demo history only (`make seed-demo`; identity answers it with DEMO_TOOLS on, never in
 * production): an account as if it signed up on a past day, its address confirmed, with a
 * password nobody knows. Its userRegistered event says that day.
 */
export const demoSignUpRpc = defineRpc(
  'identity.rpc.demo-sign-up',
  Type.Object({
    email: Email,
    full_name: Type.Optional(Type.String({ maxLength: 200 })),
    registered_at: Type.String({ format: 'date-time' }),
  }),
  Type.Object({ user_id: Uuid }),
);
export const signInRpc = defineRpc(
  'identity.rpc.sign-in',
  Type.Object({ email: Email, password: Password, address_key: AddressKey }),
  SignInResultSchema,
);
export const signInMfaRpc = defineRpc(
  'identity.rpc.sign-in-mfa',
  Type.Object({
    mfa_token: Type.String({ minLength: 1 }),
    code: Type.String({ minLength: 1, maxLength: 32 }),
    address_key: AddressKey,
  }),
  IssuedSessionSchema,
);
export const refreshRpc = defineRpc(
  'identity.rpc.refresh',
  Type.Object({ refresh_token: Type.String({ minLength: 1 }) }),
  IssuedSessionSchema,
);
export const signOutRpc = defineRpc('identity.rpc.sign-out', Type.Object({ refresh_token: Type.String() }), Empty);
/**
 * A first verification opened where nobody of the account is signed in signs nobody in: whoever
 * signed up may not own the mailbox, so the person who opened the link chooses the password first,
 * with this short-lived, single-use token (`step: 'choose_password'`). Opened in a browser that
 * holds one of the account's own sessions, the link simply confirms the address (`step:
 * 'verified'`): that person signed up there, with the password, and nothing is ended.
 */
export const SetPasswordGrantSchema = Type.Object({
  step: Type.Literal('choose_password'),
  set_password_token: Type.String(),
  email: Type.String(),
  expires_in: Type.Integer({ description: 'seconds' }),
});
export type SetPasswordGrant = Static<typeof SetPasswordGrantSchema>;
export const EmailVerifiedSchema = Type.Object({ step: Type.Literal('verified'), email: Type.String() });
export const EmailVerificationSchema = Type.Union([SetPasswordGrantSchema, EmailVerifiedSchema]);
export type EmailVerification = Static<typeof EmailVerificationSchema>;
export const verifyEmailRpc = defineRpc(
  'identity.rpc.verify-email',
  Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }),
  EmailVerificationSchema,
);
export const setPasswordRpc = defineRpc(
  'identity.rpc.set-password',
  Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }), password: Password }),
  IssuedSessionSchema,
);
export const resendVerificationRpc = defineRpc(
  'identity.rpc.resend-verification',
  Type.Object({ address_key: AddressKey }),
  Type.Object({ sent: Type.Boolean() }),
);
export const forgotPasswordRpc = defineRpc(
  'identity.rpc.forgot-password',
  Type.Object({ email: Email, address_key: AddressKey }),
  Empty,
);
export const resetPasswordRpc = defineRpc(
  'identity.rpc.reset-password',
  Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }), password: Password }),
  Empty,
);
export const getMeRpc = defineRpc('identity.rpc.get-me', Empty, MeSchema);
/**
 * Whether the caller has platform admin rights now: a verified address named admin (admin list,
 * role or account type) and, with two-factor sign-in on, a session that passed it. Admin routes
 * ask this on every request rather than trusting the access token alone.
 */
export const adminStatusRpc = defineRpc('identity.rpc.admin-status', Empty, Type.Object({ is_admin: Type.Boolean() }));
export const updateProfileRpc = defineRpc(
  'identity.rpc.update-profile',
  Type.Object({
    full_name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    avatar_url: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  }),
  ProfileSchema,
);
export const mfaEnrolRpc = defineRpc(
  'identity.rpc.mfa-enrol',
  Empty,
  Type.Object({ secret: Type.String(), otpauth_url: Type.String() }),
);
/**
 * Turning two-factor sign-in on ends every session of the account (those began without the second
 * factor) and starts a new one for the person who just proved it with the code.
 */
export const mfaConfirmRpc = defineRpc(
  'identity.rpc.mfa-confirm',
  Type.Object({ code: Type.String({ minLength: 1, maxLength: 16 }) }),
  Type.Object({ recovery_codes: Type.Array(Type.String()), session: IssuedSessionSchema }),
);
export const mfaDisableRpc = defineRpc(
  'identity.rpc.mfa-disable',
  Type.Object({ code: Type.String({ minLength: 1, maxLength: 32 }) }),
  Empty,
);
export const submitContactRpc = defineRpc(
  'identity.rpc.submit-contact',
  Type.Object({ ...ContactBodySchema.properties, address_key: AddressKey }),
  Type.Object({ id: Uuid }),
);

export const OrganizationViewSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  plan: Type.String(),
  is_active: Type.Boolean(),
  created_at: Type.String(),
  role: Type.String(),
  member_count: Type.Integer(),
  /** Issue #26: why an operator suspended it, in the operator's words; null when none did. */
  suspension_reason: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export type OrganizationView = Static<typeof OrganizationViewSchema>;
export const listMyOrgsRpc = defineRpc(
  'identity.rpc.list-my-orgs',
  Empty,
  Type.Object({ organizations: Type.Array(OrganizationViewSchema) }),
);

/**
 * Service to service (NATS permissions name who may ask): where to mail a person, for mail a
 * service sends later from its queue, when the person's own request (and its caller assertion)
 * is long over. An address that is not confirmed gets no configuration or receipt.
 */
export const mailAddressRpc = defineRpc(
  'identity.rpc.mail-address',
  Type.Object({ user_id: Uuid }),
  Type.Object({ email: Type.String(), verified: Type.Boolean() }),
);
