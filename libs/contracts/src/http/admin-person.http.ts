import { Type, type Static } from 'typebox';
import { AuditEntrySchema } from '../identity/organizations.rpc.ts';
import { AdminAuditEntrySchema } from './admin.http.ts';
import { defineRoute } from './route.ts';

/**
 * Issue #26, Operator console → Accounts: one person's own page. Its parts belong to three owners
 * (identity: profile, organizations, sessions, audit; billing: plan, invoices; provisioning:
 * devices), each asked once by the gateway, in parallel. Platform admins only.
 */
const tags = ['admin'];
const Uuid = Type.String({ format: 'uuid' });
const When = Type.String({ format: 'date-time' });
const NullableWhen = Type.Union([When, Type.Null()]);
const Count = Type.Integer({ minimum: 0 });
const NullableText = Type.Union([Type.String(), Type.Null()]);

/** The person's id as the address carries it: anything that is not a uuid is answered 404. */
export const AdminPersonParamsSchema = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const AdminPersonProfileSchema = Type.Object({
  id: Uuid,
  email: Type.String(),
  full_name: NullableText,
  email_verified: Type.Boolean(),
  email_verified_at: NullableWhen,
  created_at: When,
  /** Spec §3 profiles.account_type: admin, business or other. */
  account_type: Type.String(),
  role: Type.String(),
  is_admin: Type.Boolean(),
  two_factor: Type.Boolean(),
  /** Set while an operator has the account suspended: the reason its owner reads, and since when. */
  suspension: Type.Union([Type.Object({ reason: Type.String(), since: When }), Type.Null()]),
  /** A test account (issue #26): the console's figures, lists and charts can leave it out. */
  is_test: Type.Boolean(),
});

/** Sign-ins still able to refresh, and when any session of the person last began or refreshed. */
export const AdminPersonSessionsSchema = Type.Object({ active: Count, last_used_at: NullableWhen });

export const AdminPersonOrganizationSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  role: Type.String(),
  joined_at: When,
});

/** An entry of an organization's audit log the person did or that is about them, with its organization. */
export const AdminPersonActivitySchema = Type.Object({
  ...AuditEntrySchema.properties,
  organization: Type.Object({ id: Uuid, name: Type.String() }),
});

/** What identity answers of a person (the page's identity part). */
export const AdminPersonIdentitySchema = Type.Object({
  profile: AdminPersonProfileSchema,
  sessions: AdminPersonSessionsSchema,
  organizations: Type.Array(AdminPersonOrganizationSchema),
  /** Newest first, at most 50. */
  activity: Type.Array(AdminPersonActivitySchema),
  /** Operators' actions on this person (identity's audit), newest first, at most 50. */
  operator_actions: Type.Array(AdminAuditEntrySchema),
});
export type AdminPersonIdentity = Static<typeof AdminPersonIdentitySchema>;

export const AdminPersonInvoiceSchema = Type.Object({
  id: Uuid,
  number: NullableText,
  plan: NullableText,
  amount_cents: Type.Integer(),
  currency: Type.String(),
  status: Type.String(),
  period_start: NullableWhen,
  period_end: NullableWhen,
  paid_at: NullableWhen,
});
/** What billing answers of a person: their own plan now (not an organization's) and their invoices, newest first. */
export const AdminPersonBillingSchema = Type.Object({
  plan: Type.Union([
    Type.Object({ code: Type.String(), status: Type.String(), current_period_end: NullableWhen }),
    Type.Null(),
  ]),
  invoices: Type.Array(AdminPersonInvoiceSchema),
});
export type AdminPersonBilling = Static<typeof AdminPersonBillingSchema>;

export const AdminPersonDeviceSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  platform: Type.String(),
  organization_id: Type.Union([Uuid, Type.Null()]),
  /** `active`, or `suspended (<by whom>)`. */
  status: Type.String(),
  /** The server's name, or null while the device has no key. */
  server: NullableText,
  last_handshake_at: NullableWhen,
  created_at: When,
});
/** What provisioning answers of a person: every device of theirs, personal and in organizations. */
export const AdminPersonDevicesSchema = Type.Object({ devices: Type.Array(AdminPersonDeviceSchema) });
export type AdminPersonDevices = Static<typeof AdminPersonDevicesSchema>;

export const AdminPersonSchema = Type.Object({
  ...AdminPersonIdentitySchema.properties,
  ...AdminPersonBillingSchema.properties,
  ...AdminPersonDevicesSchema.properties,
});
export type AdminPerson = Static<typeof AdminPersonSchema>;

export const adminPersonRoute = defineRoute({
  operationId: 'adminPerson',
  method: 'GET',
  url: '/api/admin/users/:id',
  access: 'admin',
  tags,
  summary:
    "One person's page: profile, plan, organizations with roles, devices, invoices, sessions and the audit about them",
  params: AdminPersonParamsSchema,
  response: { 200: AdminPersonSchema },
});

/** Every session of the person ends: their refresh tokens at once, their access tokens within the authority cache's second. */
export const EndSessionsAnswerSchema = Type.Object({ ended: Count });
export const endPersonSessionsRoute = defineRoute({
  operationId: 'endPersonSessions',
  method: 'POST',
  url: '/api/admin/users/:id/end-sessions',
  access: 'admin',
  tags,
  summary: 'End every session of a person (they sign in again); audited',
  params: AdminPersonParamsSchema,
  response: { 200: EndSessionsAnswerSchema },
});

/** The verification mail again, for an address not yet confirmed (409 once it is). */
export const ResendVerificationAnswerSchema = Type.Object({ sent_to: Type.String() });
export const resendPersonVerificationRoute = defineRoute({
  operationId: 'resendPersonVerification',
  method: 'POST',
  url: '/api/admin/users/:id/resend-verification',
  access: 'admin',
  tags,
  summary: "Send a person's verification mail again (their address is not confirmed yet); audited",
  params: AdminPersonParamsSchema,
  response: { 200: ResendVerificationAnswerSchema },
});

/** What the money-back refund gave back, and of which plan (it ends at once). */
export const RefundLatestAnswerSchema = Type.Object({
  refunded_cents: Count,
  currency: Type.String(),
  plan: Type.String(),
});
export const refundPersonLatestRoute = defineRoute({
  operationId: 'refundPersonLatest',
  method: 'POST',
  url: '/api/admin/users/:id/refund-latest',
  access: 'admin',
  tags,
  summary:
    "Refund a person's payment within the 7-day money-back window (their plan ends at once; the refund mail goes); audited",
  params: AdminPersonParamsSchema,
  response: { 200: RefundLatestAnswerSchema },
});

/** Why the account is suspended, in words its owner reads on their dashboard. */
export const accountSuspensionReasonMaxLength = 500;
export const SuspendPersonBodySchema = Type.Object({
  reason: Type.String({ maxLength: accountSuspensionReasonMaxLength }),
});
export const PersonSuspensionAnswerSchema = Type.Object({
  suspension: Type.Union([Type.Object({ reason: Type.String(), since: When }), Type.Null()]),
});
export const suspendPersonRoute = defineRoute({
  operationId: 'suspendPerson',
  method: 'POST',
  url: '/api/admin/users/:id/suspend',
  access: 'admin',
  tags,
  summary:
    "Suspend a person's account with a reason they read: their devices stop and none can be added until it is lifted; audited",
  params: AdminPersonParamsSchema,
  body: SuspendPersonBodySchema,
  response: { 200: PersonSuspensionAnswerSchema },
});
export const reactivatePersonRoute = defineRoute({
  operationId: 'reactivatePerson',
  method: 'POST',
  url: '/api/admin/users/:id/reactivate',
  access: 'admin',
  tags,
  summary: "Lift a person's account suspension: the devices it held come back where their plan allows; audited",
  params: AdminPersonParamsSchema,
  response: { 200: PersonSuspensionAnswerSchema },
});

/** Mark the person's account as a test account (`is_test: true`) or unmark it (issue #26). */
export const TestAccountBodySchema = Type.Object({ is_test: Type.Boolean() });
export const TestAccountAnswerSchema = Type.Object({ is_test: Type.Boolean() });
export const markTestAccountRoute = defineRoute({
  operationId: 'markTestAccount',
  method: 'POST',
  url: '/api/admin/users/:id/test-account',
  access: 'admin',
  tags,
  summary:
    "Mark or unmark a person's account as a test account (the console's figures, lists and charts can leave test accounts out); audited",
  params: AdminPersonParamsSchema,
  body: TestAccountBodySchema,
  response: { 200: TestAccountAnswerSchema },
});

/** The person's page and its actions. */
export const adminPersonRoutes = [
  adminPersonRoute,
  endPersonSessionsRoute,
  resendPersonVerificationRoute,
  refundPersonLatestRoute,
  suspendPersonRoute,
  reactivatePersonRoute,
  markTestAccountRoute,
];
