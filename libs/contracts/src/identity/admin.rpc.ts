import { Type, type Static, type TSchema } from 'typebox';
import { defineRpc } from '../rpc.ts';
import {
  AdminAuditEntrySchema,
  AdminEmailSchema,
  AdminOrganizationSchema,
  AdminOrganizationsQuerySchema,
  AdminUserSchema,
  AdminUsersQuerySchema,
  AuditCursorSchema,
  adminPageSizes,
} from '../http/admin.http.ts';

/**
 * The operator console's questions to identity (spec §2 Admin area: Accounts). Every one is for
 * platform admins only: identity checks the caller assertion's admin flag and then the admin list
 * itself, at the time of the request (an address taken off the list loses the console at once,
 * whatever its access token still says).
 */
const page = <T extends TSchema>(row: T) =>
  Type.Object({
    rows: Type.Array(row),
    total: Type.Integer({ minimum: 0 }),
    page: Type.Integer({ minimum: 1 }),
    per_page: Type.Integer({ minimum: 0 }),
  });

/** A person as identity knows them: everything of the console's row but the plan (billing's). */
export const AdminUserRowSchema = Type.Omit(AdminUserSchema, ['plan']);
export type AdminUserRow = Static<typeof AdminUserRowSchema>;

export const adminUsersRpc = defineRpc('identity.rpc.admin-users', AdminUsersQuerySchema, page(AdminUserRowSchema));
export const adminOrganizationsRpc = defineRpc(
  'identity.rpc.admin-organizations',
  AdminOrganizationsQuerySchema,
  page(AdminOrganizationSchema),
);
export const adminSuspendOrganizationRpc = defineRpc(
  'identity.rpc.admin-org-suspend',
  Type.Object({ org_id: Type.String({ maxLength: 64 }), reason: Type.String({ minLength: 1, maxLength: 500 }) }),
  AdminOrganizationSchema,
);
export const adminReactivateOrganizationRpc = defineRpc(
  'identity.rpc.admin-org-reactivate',
  Type.Object({ org_id: Type.String({ maxLength: 64 }) }),
  AdminOrganizationSchema,
);
export const adminEmailsRpc = defineRpc(
  'identity.rpc.admin-emails',
  Type.Object({}),
  Type.Object({ emails: Type.Array(AdminEmailSchema) }),
);
export const addAdminEmailRpc = defineRpc(
  'identity.rpc.admin-email-add',
  Type.Object({ email: Type.String({ maxLength: 254 }) }),
  AdminEmailSchema,
);
export const removeAdminEmailRpc = defineRpc(
  'identity.rpc.admin-email-remove',
  Type.Object({ email: Type.String({ maxLength: 254 }) }),
  Type.Object({}),
);
export const adminAuditRpc = defineRpc(
  'identity.rpc.admin-audit',
  Type.Object({
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    per_page: Type.Optional(Type.Integer({ minimum: adminPageSizes.min, maximum: adminPageSizes.max })),
    /** Only entries older than this (the console's merged audit pages with it; `page` then stays 1). */
    before: Type.Optional(AuditCursorSchema),
  }),
  page(AdminAuditEntrySchema),
);

/** What the console's audit records (identity's part: accounts, organizations, the admin list). */
export const adminAuditKinds = [
  'admin_email.added',
  'admin_email.removed',
  'organization.suspended',
  'organization.reactivated',
  // Issue #26: actions on one person (their details carry `user_id`).
  'user.sessions_ended',
  'user.verification_sent',
  'user.refunded',
  'user.suspended',
  'user.reactivated',
  // Test accounts (issue #26): marked or unmarked by an operator.
  'user.test_marked',
  'user.test_unmarked',
] as const;
export type AdminAuditKind = (typeof adminAuditKinds)[number];

/** Who the console's users page may ask about at once (one page of the users list). */
export const adminPlansBatchMax = adminPageSizes.max;
