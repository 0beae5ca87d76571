import { Type, type Static } from 'typebox';
import { EmailVerificationSchema, MeSchema, OrganizationViewSchema, ProfileSchema } from '../identity/identity.rpc.ts';
import { defineRoute, NoContentSchema } from './route.ts';

const auth = ['auth'];
const account = ['account'];

/** The person a session is for, as the web app keeps it. */
export const SessionUserBodySchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  account_type: Type.String(),
  role: Type.String(),
  is_admin: Type.Boolean(),
  email_verified: Type.Boolean(),
});
/** A session: the access token in the body (kept in memory), the refresh token in an httpOnly cookie. */
export const SessionBodySchema = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer(),
  expires_at: Type.Integer({ description: 'unix seconds' }),
  user: SessionUserBodySchema,
});

export const CredentialsSchema = Type.Object({
  email: Type.String({ maxLength: 254 }),
  password: Type.String({ maxLength: 1024 }),
});
const LinkToken = Type.String({ minLength: 1, maxLength: 200 });
const NewPassword = Type.String({ maxLength: 1024 });

export const signUpRoute = defineRoute({
  operationId: 'signUp',
  method: 'POST',
  url: '/api/auth/signup',
  access: 'public',
  tags: auth,
  summary:
    'Create an account; answers with a session and sends a verification email (limited per address and per email domain). With the token of an open invitation to the same address, the address is confirmed by it and no email is sent',
  body: Type.Object({
    email: CredentialsSchema.properties.email,
    password: CredentialsSchema.properties.password,
    invitation_token: Type.Optional(LinkToken),
  }),
  response: { 201: SessionBodySchema },
});

export const MfaChallengeSchema = Type.Object({ mfa_required: Type.Literal(true), mfa_token: Type.String() });
export type MfaChallenge = Static<typeof MfaChallengeSchema>;
export type SessionBody = Static<typeof SessionBodySchema>;

export const signInRoute = defineRoute({
  operationId: 'signIn',
  method: 'POST',
  url: '/api/auth/login',
  access: 'public',
  tags: auth,
  summary: 'Sign in with email and password (a second-factor challenge when two-factor sign-in is on)',
  body: CredentialsSchema,
  response: { 200: Type.Union([SessionBodySchema, MfaChallengeSchema]) },
});

export const signInMfaRoute = defineRoute({
  operationId: 'signInMfa',
  method: 'POST',
  url: '/api/auth/mfa',
  access: 'public',
  tags: auth,
  summary: 'Finish a sign-in with an authenticator code or a recovery code',
  body: Type.Object({
    mfa_token: Type.String({ minLength: 1, maxLength: 200 }),
    code: Type.String({ minLength: 1, maxLength: 32 }),
  }),
  response: { 200: SessionBodySchema },
});

export const refreshRoute = defineRoute({
  operationId: 'refresh',
  method: 'POST',
  url: '/api/auth/refresh',
  access: 'public',
  tags: auth,
  summary:
    'Trade the refresh cookie for a new session (the cookie rotates); without a refresh cookie, 204: nobody is signed in (no error, so a signed-out page load logs none)',
  response: { 200: SessionBodySchema, 204: NoContentSchema },
});

export const signOutRoute = defineRoute({
  operationId: 'signOut',
  method: 'POST',
  url: '/api/auth/logout',
  access: 'public',
  tags: auth,
  summary: 'End this session',
  response: { 204: NoContentSchema },
});

export const verifyEmailRoute = defineRoute({
  operationId: 'verifyEmail',
  method: 'POST',
  url: '/api/auth/verify',
  access: 'public',
  tags: auth,
  summary:
    "Open an email verification link: with a session of the account's own, the address is confirmed; otherwise every session of the account ends and the answer is a short-lived token for POST /api/auth/password/set (whoever signed up may not own the address)",
  body: Type.Object({ token: LinkToken }),
  response: { 200: EmailVerificationSchema },
});

export const setPasswordRoute = defineRoute({
  operationId: 'setPassword',
  method: 'POST',
  url: '/api/auth/password/set',
  access: 'public',
  tags: auth,
  summary:
    'Choose the password after a first email verification; the address counts as verified from now on and a session starts',
  body: Type.Object({ token: LinkToken, password: NewPassword }),
  response: { 200: SessionBodySchema },
});

export const resendVerificationRoute = defineRoute({
  operationId: 'resendVerification',
  method: 'POST',
  url: '/api/auth/resend-verification',
  access: 'signed-in',
  tags: auth,
  summary: 'Send a new verification link to the signed-in person (one a minute, five an hour)',
  response: { 200: Type.Object({ sent: Type.Boolean() }) },
});

export const forgotPasswordRoute = defineRoute({
  operationId: 'forgotPassword',
  method: 'POST',
  url: '/api/auth/password/forgot',
  access: 'public',
  tags: auth,
  summary: 'Email a password reset link (the answer is the same whether or not the account exists)',
  body: Type.Object({ email: Type.String({ maxLength: 254 }) }),
  response: { 202: Type.Object({}) },
});

export const resetPasswordRoute = defineRoute({
  operationId: 'resetPassword',
  method: 'POST',
  url: '/api/auth/password/reset',
  access: 'public',
  tags: auth,
  summary: 'Set a new password with the emailed token; ends every session',
  body: Type.Object({ token: LinkToken, password: NewPassword }),
  response: { 204: NoContentSchema },
});

export const meRoute = defineRoute({
  operationId: 'me',
  method: 'GET',
  url: '/api/me',
  access: 'signed-in',
  tags: account,
  summary: 'The signed-in user, profile, resolved role and admin flag',
  response: { 200: MeSchema },
});

export const OrganizationsAnswerSchema = Type.Object({ organizations: Type.Array(OrganizationViewSchema) });

export const myOrganizationsRoute = defineRoute({
  operationId: 'myOrganizations',
  method: 'GET',
  url: '/api/orgs',
  access: 'signed-in',
  tags: ['organizations'],
  summary: "The signed-in person's organizations and role in each",
  response: { 200: OrganizationsAnswerSchema },
});

export const UpdateProfileBodySchema = Type.Object(
  {
    full_name: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
    avatar_url: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const updateProfileRoute = defineRoute({
  operationId: 'updateProfile',
  method: 'PATCH',
  url: '/api/me/profile',
  access: 'signed-in',
  tags: account,
  summary: 'Update Full name (≤ 100 characters) and Avatar URL (https, ≤ 2,048)',
  body: UpdateProfileBodySchema,
  response: { 200: ProfileSchema },
});

export const MfaEnrolmentSchema = Type.Object({
  secret: Type.String(),
  otpauth_url: Type.String(),
  qr_data_url: Type.String(),
});

export const mfaEnrolRoute = defineRoute({
  operationId: 'mfaEnrol',
  method: 'POST',
  url: '/api/me/mfa/enrol',
  access: 'signed-in',
  tags: account,
  summary: 'Start two-factor set-up: a secret and its QR code for an authenticator app (a verified address only)',
  response: { 200: MfaEnrolmentSchema },
});

const MfaCode = Type.Object({ code: Type.String({ minLength: 1, maxLength: 32 }) });

export const MfaConfirmedSchema = Type.Object({
  ...SessionBodySchema.properties,
  recovery_codes: Type.Array(Type.String()),
});

export const mfaConfirmRoute = defineRoute({
  operationId: 'mfaConfirm',
  method: 'POST',
  url: '/api/me/mfa/confirm',
  access: 'signed-in',
  tags: account,
  summary:
    'Turn two-factor sign-in on with a code from the app; answers ten recovery codes, once. Every session of the account ends and a new one (which passed the second factor) starts',
  body: Type.Object({ code: Type.String({ minLength: 1, maxLength: 16 }) }),
  response: { 200: MfaConfirmedSchema },
});

export const mfaDisableRoute = defineRoute({
  operationId: 'mfaDisable',
  method: 'POST',
  url: '/api/me/mfa/disable',
  access: 'signed-in',
  tags: account,
  summary: 'Turn two-factor sign-in off with a current code or a recovery code',
  body: MfaCode,
  response: { 204: NoContentSchema },
});

export const authRoutes = [
  signUpRoute,
  signInRoute,
  signInMfaRoute,
  refreshRoute,
  signOutRoute,
  verifyEmailRoute,
  setPasswordRoute,
  resendVerificationRoute,
  forgotPasswordRoute,
  resetPasswordRoute,
];
export const accountRoutes = [
  meRoute,
  myOrganizationsRoute,
  updateProfileRoute,
  mfaEnrolRoute,
  mfaConfirmRoute,
  mfaDisableRoute,
];
