import QRCode from 'qrcode';
import { Type } from 'typebox';
import { OrganizationViewSchema, listMyOrgsRpc, getMeRpc, mfaConfirmRpc, mfaDisableRpc, mfaEnrolRpc, MeSchema, ProfileSchema, updateProfileRpc } from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import { requireSignedIn } from '../auth/caller.ts';

const tags = ['account'];
const security = [{ bearer: [] }];

export function registerAccountRoutes(app: HttpApp, deps: { rpc: RpcClient }): void {
  const { rpc } = deps;

  app.get('/api/me', { schema: { tags, security, summary: 'The signed-in user, profile, resolved role and admin flag', response: { 200: MeSchema } } },
    async (request, reply) => reply.header('cache-control', 'no-store').send(await rpc.request(getMeRpc, {}, requireSignedIn(request))));

  app.get('/api/orgs', { schema: { tags: ['organizations'], security, summary: "The signed-in person's organizations and role in each", response: { 200: Type.Object({ organizations: Type.Array(OrganizationViewSchema) }) } } },
    async (request, reply) => reply.header('cache-control', 'no-store').send(await rpc.request(listMyOrgsRpc, {}, requireSignedIn(request))));

  app.patch('/api/me/profile', {
    schema: {
      tags, security, summary: 'Update Full name (≤ 100 characters) and Avatar URL (https, ≤ 2,048)',
      body: Type.Object({ full_name: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])), avatar_url: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])) }, { additionalProperties: false }),
      response: { 200: ProfileSchema },
    },
  }, async (request) => rpc.request(updateProfileRpc, request.body, requireSignedIn(request)));

  app.post('/api/me/mfa/enrol', {
    schema: { tags, security, summary: 'Start two-factor set-up: a secret and its QR code for an authenticator app', response: { 200: Type.Object({ secret: Type.String(), otpauth_url: Type.String(), qr_data_url: Type.String() }) } },
  }, async (request, reply) => {
    const enrolment = await rpc.request(mfaEnrolRpc, {}, requireSignedIn(request));
    const qr = await QRCode.toDataURL(enrolment.otpauth_url, { errorCorrectionLevel: 'M', margin: 2, width: 240 });
    return reply.header('cache-control', 'no-store').send({ ...enrolment, qr_data_url: qr });
  });

  app.post('/api/me/mfa/confirm', {
    schema: { tags, security, summary: 'Turn two-factor sign-in on with a code from the app; answers ten recovery codes, once', body: Type.Object({ code: Type.String({ minLength: 1, maxLength: 16 }) }), response: { 200: Type.Object({ recovery_codes: Type.Array(Type.String()) }) } },
  }, async (request, reply) => reply.header('cache-control', 'no-store').send(await rpc.request(mfaConfirmRpc, request.body, requireSignedIn(request))));

  app.post('/api/me/mfa/disable', {
    schema: { tags, security, summary: 'Turn two-factor sign-in off with a current code or a recovery code', body: Type.Object({ code: Type.String({ minLength: 1, maxLength: 32 }) }) },
  }, async (request, reply) => {
    await rpc.request(mfaDisableRpc, request.body, requireSignedIn(request));
    return reply.status(204).send();
  });
}
