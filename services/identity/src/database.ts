import type { ColumnType, Generated, Selectable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  email_verified_at: NullableTimestamp;
  created_at: Timestamp;
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

export interface AdminEmailsTable {
  email: string;
  is_admin: Generated<boolean>;
  role: string | null;
}

export interface RefreshTokensTable {
  token_hash: string;
  family_id: string;
  user_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export interface EmailTokensTable {
  token_hash: string;
  purpose: 'verify_email' | 'reset_password';
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
  created_at: Timestamp;
}

export interface OrgMembersTable {
  org_id: string;
  user_id: string;
  role: Generated<string>;
  created_at: Timestamp;
}

export interface ContactMessagesTable {
  id: string;
  email: string;
  message: string;
  created_at: Timestamp;
  forwarded_at: NullableTimestamp;
}

export interface RateEventsTable {
  seq: Generated<string>;
  key: string;
  at: Timestamp;
}

export interface IdentityDatabase {
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
  contact_messages: ContactMessagesTable;
  rate_events: RateEventsTable;
  outbox: { id: string; subject: string; envelope: unknown };
}

export type User = Selectable<UsersTable>;
export type ProfileRow = Selectable<ProfilesTable>;
