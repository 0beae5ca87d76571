import {
  AppError,
  forgotPasswordRoute,
  forgotPasswordRpc,
  refreshRoute,
  refreshRpc,
  resendVerificationRoute,
  resendVerificationRpc,
  resetPasswordRoute,
  resetPasswordRpc,
  setPasswordRoute,
  setPasswordRpc,
  signInMfaRoute,
  signInMfaRpc,
  signInRoute,
  signInRpc,
  signOutRoute,
  signOutRpc,
  signUpRoute,
  signUpRpc,
  verifyEmailRoute,
  verifyEmailRpc,
} from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import { addRoute } from '../http/add-route.ts';
import { addressKey } from './caller.ts';
import { clearSessionCookie, refreshCookie, sendSession, type SessionSettings } from './session-reply.ts';

export type AuthRouteDeps = { rpc: RpcClient; session: SessionSettings; addressHashKey: string };

/** Sessions and e-mail links: each route one request to identity; the gateway mints the access token. */
export function registerAuthRoutes(app: HttpApp, deps: AuthRouteDeps): void {
  const { rpc, session } = deps;
  const address = (request: Parameters<typeof addressKey>[0]) => addressKey(request, deps.addressHashKey);

  addRoute(app, signUpRoute, async (request, reply) =>
    sendSession(reply, await rpc.request(signUpRpc, { ...request.body, address_key: address(request) }), session, 201),
  );

  addRoute(app, signInRoute, async (request, reply) => {
    const result = await rpc.request(signInRpc, { ...request.body, address_key: address(request) });
    if (result.status === 'mfa_required')
      return reply
        .header('cache-control', 'no-store')
        .send({ mfa_required: true as const, mfa_token: result.mfa_token });
    return sendSession(reply, result.session, session);
  });

  addRoute(app, signInMfaRoute, async (request, reply) =>
    sendSession(reply, await rpc.request(signInMfaRpc, { ...request.body, address_key: address(request) }), session),
  );

  addRoute(app, refreshRoute, async (request, reply) => {
    const token = request.cookies[refreshCookie];
    // Nobody signed in on this browser: not an error (a signed-out page load asks every time).
    // A cookie that no longer works is one: 401, and the cookie is cleared.
    if (!token) return reply.status(204).header('cache-control', 'no-store').send();
    try {
      return await sendSession(reply, await rpc.request(refreshRpc, { refresh_token: token }), session);
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_token') clearSessionCookie(reply, session);
      throw error;
    }
  });

  addRoute(app, signOutRoute, async (request, reply) => {
    const token = request.cookies[refreshCookie];
    if (token) await rpc.request(signOutRpc, { refresh_token: token });
    clearSessionCookie(reply, session);
    return reply.status(204).send();
  });

  addRoute(app, verifyEmailRoute, async (request, reply) =>
    reply.header('cache-control', 'no-store').send(await rpc.request(verifyEmailRpc, request.body, request.caller)),
  );

  addRoute(app, setPasswordRoute, async (request, reply) =>
    sendSession(reply, await rpc.request(setPasswordRpc, request.body), session),
  );

  addRoute(app, resendVerificationRoute, async (request) =>
    rpc.request(resendVerificationRpc, { address_key: address(request) }, request.caller),
  );

  addRoute(app, forgotPasswordRoute, async (request, reply) => {
    await rpc.request(forgotPasswordRpc, { email: request.body.email, address_key: address(request) });
    return reply.status(202).send({});
  });

  addRoute(app, resetPasswordRoute, async (request, reply) => {
    await rpc.request(resetPasswordRpc, request.body);
    return reply.status(204).send();
  });
}
