import type { ColumnType, Generated, Selectable } from 'kysely';
import type { PlatformTables } from '@qw/platform/db';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  email_verified_at: NullableTimestamp;
  created_at: Timestamp;
  /** Set while the operator has the account suspended (issue #26), with the reason its owner reads. */
  suspended_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  suspension_reason: ColumnType<string | null, string | null | undefined, string | null>;
  /** A test account (issue #26): the console's figures and lists can leave it out. */
  is_test: ColumnType<boolean, boolean | undefined, boolean>;
}

export interface ProfilesTable {
  id: string;
  email: string;
  full_name: string | null;
  avatar_url: string | null;
  account_type: Generated<string>;
  role: string | null;
  updated_at: Timestamp;
}

/** Rows from ADMIN_EMAILS follow the list at every start; rows operators add are left alone. */
export type AdminEmailSource = 'environment' | 'operator';

export interface AdminEmailsTable {
  email: string;
  is_admin: Generated<boolean>;
  role: string | null;
  source: ColumnType<AdminEmailSource, AdminEmailSource | undefined, AdminEmailSource>;
  added_at: Timestamp;
  /** The operator who added it through the console; null for ADMIN_EMAILS rows. */
  added_by: string | null;
}

export interface RefreshTokensTable {
  token_hash: string;
  family_id: string;
  user_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  /** The sign-in that began this family passed the second factor; admin rights need it once it is on. */
  two_factor: Generated<boolean>;
}

/** One-use, expiring tokens: the two e-mailed links, and the step that follows a first verification. */
export type EmailTokenPurpose = 'verify_email' | 'reset_password' | 'set_password';

export interface EmailTokensTable {
  token_hash: string;
  purpose: EmailTokenPurpose;
  user_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

export interface MfaFactorsTable {
  user_id: string;
  secret: string;
  confirmed_at: NullableTimestamp;
  last_used_step: ColumnType<string | null, number | null | undefined, number | null>;
  created_at: Timestamp;
}

export interface MfaRecoveryCodesTable {
  code_hash: string;
  user_id: string;
  used_at: NullableTimestamp;
}

export interface MfaChallengesTable {
  token_hash: string;
  user_id: string;
  expires_at: Timestamp;
  attempts: Generated<number>;
}

export interface OrganizationsTable {
  id: string;
  name: string;
  plan: string;
  is_active: Generated<boolean>;
  /** An operator suspended it (the console): Suspended whatever its plan until an operator lifts it. */
  suspended_by_operator: Generated<boolean>;
  /** Why an operator suspended it, shown to its members; null when no operator holds it. */
  suspension_reason: string | null;
  created_at: Timestamp;
}

export type OrgRole = 'owner' | 'admin' | 'member';

export interface OrgMembersTable {
  org_id: string;
  user_id: string;
  role: ColumnType<OrgRole, OrgRole | undefined, OrgRole>;
  created_at: Timestamp;
}

/** An e-mailed invitation; the link's token exists only in the mail, this is its hash. */
export interface InvitationsTable {
  id: string;
  org_id: string;
  email: string;
  role: 'admin' | 'member';
  token_hash: string;
  invited_by: string | null;
  expires_at: Timestamp;
  accepted_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  created_at: Timestamp;
}

/** Who did what to whom and when, per organization; names are snapshots; never a client address. */
export interface AuditLogTable {
  id: string;
  org_id: string;
  at: Timestamp;
  kind: string;
  actor_id: string | null;
  actor_name: string | null;
  target_kind: string | null;
  target_id: string | null;
  target_name: string | null;
  person_id: string | null;
  /** Written as JSON text, read back as an object. */
  details: ColumnType<Record<string, unknown>, string | undefined, string>;
}

/** Billing's subscriptions of organizations, from its events: the organization is Active while one entitles it. */
export interface OrgSubscriptionsTable {
  subscription_id: string;
  org_id: string;
  plan_code: string;
  status: string;
  updated_at: Timestamp;
}

/** The operators' own changes (the console's audit): who, when, to what; no client address ever. */
export interface AdminAuditTable {
  id: string;
  at: Timestamp;
  kind: string;
  actor_id: string;
  /** The acting admin's address at the time. */
  actor_email: string;
  target: string;
  /** Written as JSON text, read back as an object. */
  details: ColumnType<Record<string, unknown>, string | undefined, string>;
}

export interface ContactMessagesTable {
  id: string;
  email: string;
  message: string;
  created_at: Timestamp;
  forwarded_at: NullableTimestamp;
}

/** A billing notice mailed once per subscription and moment (`kind`, `key`: the period's end). */
export interface BillingNoticesTable {
  subscription_id: string;
  kind: string;
  key: string;
  created_at: Timestamp;
}

/** The platform's tables (outbox, inbox, rate events, mail jobs) come with `PlatformTables`. */
export interface IdentityDatabase extends PlatformTables {
  users: UsersTable;
  profiles: ProfilesTable;
  admin_emails: AdminEmailsTable;
  refresh_tokens: RefreshTokensTable;
  email_tokens: EmailTokensTable;
  mfa_factors: MfaFactorsTable;
  mfa_recovery_codes: MfaRecoveryCodesTable;
  mfa_challenges: MfaChallengesTable;
  organizations: OrganizationsTable;
  org_members: OrgMembersTable;
  invitations: InvitationsTable;
  audit_log: AuditLogTable;
  org_subscriptions: OrgSubscriptionsTable;
  admin_audit: AdminAuditTable;
  contact_messages: ContactMessagesTable;
  billing_notices: BillingNoticesTable;
}

export type User = Selectable<UsersTable>;
export type ProfileRow = Selectable<ProfilesTable>;
export type InvitationRow = Selectable<InvitationsTable>;
export type AuditLogRow = Selectable<AuditLogTable>;
