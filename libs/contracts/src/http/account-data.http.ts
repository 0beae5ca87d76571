import { Type, type Static } from 'typebox';
import { BillingAccountDataSchema } from '../billing/account-data.rpc.ts';
import { IdentityAccountDataSchema } from '../identity/account-data.rpc.ts';
import { ProvisioningAccountDataSchema } from '../provisioning/account-data.rpc.ts';
import { defineRoute } from './route.ts';

const account = ['account'];

/**
 * Everything Quietwire holds about the signed-in person, as one JSON document: each part from the
 * service that owns it. No private or preshared key, no password hash, no token.
 */
export const AccountExportSchema = Type.Object({
  exported_at: Type.String(),
  account: IdentityAccountDataSchema.properties.account,
  organizations: IdentityAccountDataSchema.properties.organizations,
  devices: ProvisioningAccountDataSchema.properties.devices,
  subscriptions: BillingAccountDataSchema.properties.subscriptions,
  invoices: BillingAccountDataSchema.properties.invoices,
  audit: IdentityAccountDataSchema.properties.audit,
});
export type AccountExport = Static<typeof AccountExportSchema>;

export const exportAccountRoute = defineRoute({
  operationId: 'exportAccount',
  method: 'GET',
  url: '/api/me/export',
  access: 'signed-in',
  tags: account,
  summary:
    'Download everything held about the signed-in person as JSON: account, organizations, devices (public keys and addresses, never a private key), plans, invoices and audit entries about them',
  response: { 200: AccountExportSchema },
});

export const deleteAccountRoute = defineRoute({
  operationId: 'deleteAccount',
  method: 'POST',
  url: '/api/me/delete',
  access: 'signed-in',
  tags: account,
  summary:
    "Delete the signed-in person's account with their password: their plan is cancelled, their devices leave every server, their personal data is erased, every session ends and a mail confirms it. Refused (409) for the last owner of an organization that others still need",
  body: Type.Object({ password: Type.String({ minLength: 1, maxLength: 1024 }) }, { additionalProperties: false }),
  response: { 200: Type.Object({ deleted_at: Type.String() }) },
});

export const accountDataRoutes = [exportAccountRoute, deleteAccountRoute];
