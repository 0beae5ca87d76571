import QRCode from 'qrcode';
import {
  deleteAccountRoute,
  deleteAccountRpc,
  exportAccountRoute,
  exportBillingDataRpc,
  exportIdentityDataRpc,
  exportProvisioningDataRpc,
  getMeRpc,
  listMyOrgsRpc,
  meRoute,
  mfaConfirmRoute,
  mfaConfirmRpc,
  mfaDisableRoute,
  mfaDisableRpc,
  mfaEnrolRoute,
  mfaEnrolRpc,
  myOrganizationsRoute,
  updateProfileRoute,
  updateProfileRpc,
} from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import { clearSessionCookie, startSession, type SessionSettings } from '../auth/session-reply.ts';
import { addRoute } from '../http/add-route.ts';

export function registerAccountRoutes(app: HttpApp, deps: { rpc: RpcClient; session: SessionSettings }): void {
  const { rpc } = deps;

  addRoute(app, meRoute, async (request, reply) =>
    reply.header('cache-control', 'no-store').send(await rpc.request(getMeRpc, {}, request.caller)),
  );

  addRoute(app, myOrganizationsRoute, async (request, reply) =>
    reply.header('cache-control', 'no-store').send(await rpc.request(listMyOrgsRpc, {}, request.caller)),
  );

  addRoute(app, updateProfileRoute, async (request) => rpc.request(updateProfileRpc, request.body, request.caller));

  addRoute(app, mfaEnrolRoute, async (request, reply) => {
    const enrolment = await rpc.request(mfaEnrolRpc, {}, request.caller);
    const qr = await QRCode.toDataURL(enrolment.otpauth_url, { errorCorrectionLevel: 'M', margin: 2, width: 240 });
    return reply.header('cache-control', 'no-store').send({ ...enrolment, qr_data_url: qr });
  });

  // Every session of the account ends; the one that confirmed goes on with a session that passed the second factor.
  addRoute(app, mfaConfirmRoute, async (request, reply) => {
    const { recovery_codes, session: issued } = await rpc.request(mfaConfirmRpc, request.body, request.caller);
    return reply.send({ ...(await startSession(reply, issued, deps.session)), recovery_codes });
  });

  addRoute(app, mfaDisableRoute, async (request, reply) => {
    await rpc.request(mfaDisableRpc, request.body, request.caller);
    return reply.status(204).send();
  });

  // Each service answers for its own data; the gateway only puts the parts together.
  addRoute(app, exportAccountRoute, async (request, reply) => {
    const [identity, provisioning, billing] = await Promise.all([
      rpc.request(exportIdentityDataRpc, {}, request.caller),
      rpc.request(exportProvisioningDataRpc, {}, request.caller),
      rpc.request(exportBillingDataRpc, {}, request.caller),
    ]);
    const exportedAt = new Date().toISOString();
    return reply
      .header('cache-control', 'no-store')
      .header('content-disposition', `attachment; filename="quietwire-data-${exportedAt.slice(0, 10)}.json"`)
      .send({
        exported_at: exportedAt,
        account: identity.account,
        organizations: identity.organizations,
        devices: provisioning.devices,
        subscriptions: billing.subscriptions,
        invoices: billing.invoices,
        audit: identity.audit,
      });
  });

  // Identity erases the account and announces it; billing and provisioning follow from the event.
  addRoute(app, deleteAccountRoute, async (request, reply) => {
    const deleted = await rpc.request(deleteAccountRpc, request.body, request.caller);
    clearSessionCookie(reply, deps.session);
    return reply.header('cache-control', 'no-store').send(deleted);
  });
}
