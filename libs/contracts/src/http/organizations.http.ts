import { Type } from 'typebox';
import {
  AuditEntrySchema,
  InvitationPreviewSchema,
  InvitationSchema,
  OrganizationDetailSchema,
  OrgUserSchema,
} from '../identity/organizations.rpc.ts';
import { OrganizationViewSchema } from '../identity/identity.rpc.ts';
import {
  CountrySchema,
  DevicePrivacyFields,
  DeviceOverviewSchema,
  OrgDevicesPageSchema,
  OrgDevicesPagingFields,
  RegionChoiceSchema,
} from '../provisioning/provisioning.rpc.ts';
import { DeviceAnswerSchema } from './devices.http.ts';
import { organizationManagerActions } from '../organizations.ts';
import { defineRoute, NoContentSchema, organizationManagers, organizationMembers } from './route.ts';

const tags = ['organizations'];
const Id = Type.String({ maxLength: 64 });
export const OrgParamsSchema = Type.Object({ id: Id });
const Role = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')]);
const InvitableRole = Type.Union([Type.Literal('admin'), Type.Literal('member')]);
const InvitationToken = Type.Object({ token: Type.String({ minLength: 20, maxLength: 200 }) });

export const organizationRoute = defineRoute({
  operationId: 'organization',
  method: 'GET',
  url: '/api/orgs/:id',
  access: organizationMembers,
  tags,
  summary: 'An organization of yours: name, plan, users (with the cap), devices cap, created, Active or Suspended',
  params: OrgParamsSchema,
  response: { 200: OrganizationDetailSchema },
});

export const renameOrganizationRoute = defineRoute({
  operationId: 'renameOrganization',
  method: 'PATCH',
  url: '/api/orgs/:id',
  access: organizationManagers(organizationManagerActions.rename),
  tags,
  summary: 'Rename the organization (owners and admins)',
  params: OrgParamsSchema,
  body: Type.Object({ name: Type.String({ maxLength: 1000 }) }, { additionalProperties: false }),
  response: { 200: OrganizationDetailSchema },
});

export const orgOverviewRoute = defineRoute({
  operationId: 'orgOverview',
  method: 'GET',
  url: '/api/orgs/:id/overview',
  access: organizationMembers,
  tags,
  summary: "The organization's Devices, Connected and VPN Status (a member's own devices only)",
  params: OrgParamsSchema,
  response: { 200: DeviceOverviewSchema },
});

export const OrgDevicesQuerySchema = Type.Object(OrgDevicesPagingFields);
export const OrgDevicesAnswerSchema = OrgDevicesPageSchema;

export const orgDevicesRoute = defineRoute({
  operationId: 'orgDevices',
  method: 'GET',
  url: '/api/orgs/:id/devices',
  access: organizationMembers,
  tags,
  summary:
    "The organization's devices with status (owners and admins: all; members: their own), newest first, paged (page, per_page 1 to 100, 50 by default), by person and name; the whole organization's quotas",
  params: OrgParamsSchema,
  querystring: OrgDevicesQuerySchema,
  response: { 200: OrgDevicesAnswerSchema },
});

export const CreateOrgDeviceBodySchema = Type.Object({
  name: Type.String({ maxLength: 1000 }),
  platform: Type.Optional(Type.String({ maxLength: 32, description: 'linux by default' })),
  assignee_id: Type.Optional(Type.String({ maxLength: 64, description: 'owners and admins: any member; default you' })),
  public_key: Type.Optional(Type.String({ maxLength: 64 })),
  /** Where it connects (issue #23): a region, or Automatic (the default), nearest `country` first. */
  region: Type.Optional(RegionChoiceSchema),
  country: Type.Optional(CountrySchema),
  /** Tunnel privacy: content blocking and split tunnel (defaults: none, all traffic). */
  ...DevicePrivacyFields,
});

export const createOrgDeviceRoute = defineRoute({
  operationId: 'createOrgDevice',
  method: 'POST',
  url: '/api/orgs/:id/devices',
  access: organizationMembers,
  tags,
  summary: 'Add a device for a member (5 per person, the plan’s device count in all; not while Suspended)',
  params: OrgParamsSchema,
  body: CreateOrgDeviceBodySchema,
  response: { 201: DeviceAnswerSchema },
});

export const orgUsersRoute = defineRoute({
  operationId: 'orgUsers',
  method: 'GET',
  url: '/api/orgs/:id/users',
  access: organizationManagers(organizationManagerActions.seeUsers),
  tags,
  summary: 'Spec §7 list_org_users: user id, full name, email and role (owners and admins)',
  params: OrgParamsSchema,
  response: { 200: Type.Object({ users: Type.Array(OrgUserSchema) }) },
});

export const OrgUserParamsSchema = Type.Object({ id: Id, userId: Id });

export const changeMemberRoleRoute = defineRoute({
  operationId: 'changeMemberRole',
  method: 'PATCH',
  url: '/api/orgs/:id/users/:userId',
  access: organizationManagers(organizationManagerActions.changeRoles),
  tags,
  summary: 'Change a member’s role (owners and admins; only an owner makes owners; the last owner stays one)',
  params: OrgUserParamsSchema,
  body: Type.Object({ role: Role }, { additionalProperties: false }),
  response: { 200: Type.Object({ user: OrgUserSchema }) },
});

export const removeMemberRoute = defineRoute({
  operationId: 'removeMember',
  method: 'DELETE',
  url: '/api/orgs/:id/users/:userId',
  access: organizationManagers(organizationManagerActions.removeMembers),
  tags,
  summary: 'Remove a member (owners and admins; never the last owner); their organization devices are removed',
  params: OrgUserParamsSchema,
  response: { 204: NoContentSchema },
});

export const leaveOrganizationRoute = defineRoute({
  operationId: 'leaveOrganization',
  method: 'POST',
  url: '/api/orgs/:id/leave',
  access: organizationMembers,
  tags,
  summary: 'Leave the organization (not as its last owner); your organization devices are removed',
  params: OrgParamsSchema,
  response: { 204: NoContentSchema },
});

export const invitationsRoute = defineRoute({
  operationId: 'invitations',
  method: 'GET',
  url: '/api/orgs/:id/invitations',
  access: organizationManagers(organizationManagerActions.seeInvitations),
  tags,
  summary: 'Invitations not yet accepted, revoked or expired (owners and admins)',
  params: OrgParamsSchema,
  response: { 200: Type.Object({ invitations: Type.Array(InvitationSchema) }) },
});

export const inviteMemberRoute = defineRoute({
  operationId: 'inviteMember',
  method: 'POST',
  url: '/api/orgs/:id/invitations',
  access: organizationManagers(organizationManagerActions.invite),
  tags,
  summary:
    'Invite a person by email (owners and admins; members and open invitations together stay within the plan’s user cap)',
  params: OrgParamsSchema,
  body: Type.Object({ email: Type.String({ maxLength: 254 }), role: InvitableRole }),
  response: { 201: Type.Object({ invitation: InvitationSchema }) },
});

export const revokeInvitationRoute = defineRoute({
  operationId: 'revokeInvitation',
  method: 'DELETE',
  url: '/api/orgs/:id/invitations/:invitationId',
  access: organizationManagers(organizationManagerActions.revokeInvitations),
  tags,
  summary: 'Revoke an invitation (owners and admins); its link stops working',
  params: Type.Object({ id: Id, invitationId: Id }),
  response: { 204: NoContentSchema },
});

export const AuditQuerySchema = Type.Object({
  kind: Type.Optional(Type.String({ maxLength: 64 })),
  person: Type.Optional(Type.String({ maxLength: 64 })),
  before: Type.Optional(Type.String({ maxLength: 64 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});

export const auditLogRoute = defineRoute({
  operationId: 'auditLog',
  method: 'GET',
  url: '/api/orgs/:id/audit',
  access: organizationManagers(organizationManagerActions.readAuditLog),
  tags,
  summary: 'The audit log, newest first: who did what to whom and when; by kind and person, paged (owners and admins)',
  params: OrgParamsSchema,
  querystring: AuditQuerySchema,
  response: {
    200: Type.Object({ entries: Type.Array(AuditEntrySchema), next: Type.Union([Type.String(), Type.Null()]) }),
  },
});

export const previewInvitationRoute = defineRoute({
  operationId: 'previewInvitation',
  method: 'POST',
  url: '/api/invitations/preview',
  access: 'public',
  tags,
  summary: 'What an invitation link offers (the token stays out of addresses and logs)',
  body: InvitationToken,
  response: { 200: InvitationPreviewSchema },
});

export const acceptInvitationRoute = defineRoute({
  operationId: 'acceptInvitation',
  method: 'POST',
  url: '/api/invitations/accept',
  access: 'signed-in',
  tags,
  summary: 'Join with an invitation mailed to your address (the link also confirms the address)',
  body: InvitationToken,
  response: { 200: Type.Object({ organization: OrganizationViewSchema }) },
});

/** The organization's devices (provisioning answers them). */
export const organizationDeviceRoutes = [orgOverviewRoute, orgDevicesRoute, createOrgDeviceRoute];

/** The organization itself, its people, invitations and audit log (identity answers them). */
export const organizationMemberRoutes = [
  organizationRoute,
  renameOrganizationRoute,
  orgUsersRoute,
  changeMemberRoleRoute,
  removeMemberRoute,
  leaveOrganizationRoute,
  invitationsRoute,
  inviteMemberRoute,
  revokeInvitationRoute,
  auditLogRoute,
  previewInvitationRoute,
  acceptInvitationRoute,
];
