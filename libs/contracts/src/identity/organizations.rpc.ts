import { Type, type Static } from 'typebox';
import { defineRpc } from '../rpc.ts';
import { OrganizationViewSchema } from './identity.rpc.ts';

const Uuid = Type.String({ format: 'uuid' });
const OrgId = Type.Object({ org_id: Uuid });
const Role = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')]);
const InvitableRole = Type.Union([Type.Literal('admin'), Type.Literal('member')]);

/** Spec §2 business Account: name, plan, users (count, with the cap if any), created. */
export const OrganizationDetailSchema = Type.Intersect([
  OrganizationViewSchema,
  Type.Object({
    user_cap: Type.Union([Type.Integer(), Type.Null()]),
    device_cap: Type.Union([Type.Integer(), Type.Null()]),
    status: Type.Union([Type.Literal('Active'), Type.Literal('Suspended')]),
  }),
]);
export type OrganizationDetail = Static<typeof OrganizationDetailSchema>;

/** Spec §3 "Organization user list entry". */
export const OrgUserSchema = Type.Object({
  user_id: Uuid,
  full_name: Type.Union([Type.String(), Type.Null()]),
  email: Type.String(),
  role: Role,
});
export type OrgUser = Static<typeof OrgUserSchema>;

export const InvitationSchema = Type.Object({
  id: Uuid,
  email: Type.String(),
  role: InvitableRole,
  invited_by: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  expires_at: Type.String(),
});
export type Invitation = Static<typeof InvitationSchema>;

/** What an invitation link shows before it is accepted (anyone holding the link may see it). */
export const InvitationPreviewSchema = Type.Object({
  organization: Type.String(),
  email: Type.String(),
  role: InvitableRole,
  expires_at: Type.String(),
  /** Whether an account with that address exists (sign in to join) or not (create one). */
  account_exists: Type.Boolean(),
});

export const getOrganizationRpc = defineRpc('identity.rpc.org-get', OrgId, OrganizationDetailSchema);
/** Spec §7 list_org_users: owners and admins only. */
export const listOrgUsersRpc = defineRpc(
  'identity.rpc.org-users',
  OrgId,
  Type.Object({ users: Type.Array(OrgUserSchema) }),
);
export const inviteMemberRpc = defineRpc(
  'identity.rpc.org-invite',
  Type.Object({ org_id: Uuid, email: Type.String({ maxLength: 254 }), role: InvitableRole }),
  Type.Object({ invitation: InvitationSchema }),
);
export const listInvitationsRpc = defineRpc(
  'identity.rpc.org-invitations',
  OrgId,
  Type.Object({ invitations: Type.Array(InvitationSchema) }),
);
export const revokeInvitationRpc = defineRpc(
  'identity.rpc.org-revoke-invitation',
  Type.Object({ org_id: Uuid, invitation_id: Uuid }),
  Type.Object({}),
);
export const previewInvitationRpc = defineRpc(
  'identity.rpc.invitation-preview',
  Type.Object({ token: Type.String({ minLength: 20, maxLength: 200 }) }),
  InvitationPreviewSchema,
);
/** The signed-in person joins with the link mailed to their address (the link also proves it). */
export const acceptInvitationRpc = defineRpc(
  'identity.rpc.invitation-accept',
  Type.Object({ token: Type.String({ minLength: 20, maxLength: 200 }) }),
  Type.Object({ organization: OrganizationViewSchema }),
);
export const changeMemberRoleRpc = defineRpc(
  'identity.rpc.org-change-role',
  Type.Object({ org_id: Uuid, user_id: Uuid, role: Role }),
  Type.Object({ user: OrgUserSchema }),
);
export const removeMemberRpc = defineRpc(
  'identity.rpc.org-remove-member',
  Type.Object({ org_id: Uuid, user_id: Uuid }),
  Type.Object({}),
);
export const leaveOrganizationRpc = defineRpc('identity.rpc.org-leave', OrgId, Type.Object({}));
export const renameOrganizationRpc = defineRpc(
  'identity.rpc.org-rename',
  Type.Object({ org_id: Uuid, name: Type.String({ maxLength: 1000 }) }),
  OrganizationDetailSchema,
);

export const AuditEntrySchema = Type.Object({
  id: Uuid,
  at: Type.String(),
  kind: Type.String(),
  /**
   * Who did it; null: the system (a plan that ended). An operator's change shows as Quietwire
   * support with no user id: the operator's identity stays in the operators' own audit.
   */
  actor: Type.Union([Type.Object({ user_id: Type.Union([Uuid, Type.Null()]), name: Type.String() }), Type.Null()]),
  target: Type.Union([Type.Object({ kind: Type.String(), id: Type.String(), name: Type.String() }), Type.Null()]),
  details: Type.Record(Type.String(), Type.Unknown()),
});
export type AuditEntry = Static<typeof AuditEntrySchema>;
/** Owners and admins read their organization's audit log: newest first, by kind and person, paged. */
export const auditLogRpc = defineRpc(
  'identity.rpc.org-audit',
  Type.Object({
    org_id: Uuid,
    kind: Type.Optional(Type.String({ maxLength: 64 })),
    person: Type.Optional(Uuid),
    before: Type.Optional(Type.String({ maxLength: 64, description: 'the cursor of the page before' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  }),
  Type.Object({ entries: Type.Array(AuditEntrySchema), next: Type.Union([Type.String(), Type.Null()]) }),
);

/** Service to service: a person's role in an organization, and the organization's state. */
export const membershipRpc = defineRpc(
  'identity.rpc.membership',
  Type.Object({ org_id: Uuid, user_id: Uuid }),
  Type.Object({
    role: Type.Union([Role, Type.Null()]),
    org_active: Type.Boolean(),
    plan: Type.Union([Type.String(), Type.Null()]),
  }),
);
