import { Type } from 'typebox';
import {
  AppError, forgotPasswordRpc, refreshRpc, resendVerificationRpc, resetPasswordRpc, signInMfaRpc, signInRpc,
  signOutRpc, signUpRpc, verifyEmailRpc,
} from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import { addressKey, requireSignedIn } from './caller.ts';
import { SessionBody, clearSessionCookie, refreshCookie, sendSession, type SessionSettings } from './session-reply.ts';

const Credentials = Type.Object({
  email: Type.String({ maxLength: 254 }),
  password: Type.String({ maxLength: 1024 }),
});
const ErrorBody = Type.Object({ error: Type.Object({ code: Type.String(), message: Type.String(), details: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }) });
const tags = ['auth'];

export type AuthRouteDeps = { rpc: RpcClient; session: SessionSettings; addressHashKey: string };

export function registerAuthRoutes(app: HttpApp, deps: AuthRouteDeps): void {
  const { rpc, session } = deps;

  app.post('/api/auth/signup', {
    schema: { tags, summary: 'Create an account; answers with a session and sends a verification email', body: Credentials, response: { 201: SessionBody, 409: ErrorBody, 422: ErrorBody } },
  }, async (request, reply) => {
    const issued = await rpc.request(signUpRpc, { ...request.body, address_key: addressKey(request, deps.addressHashKey) });
    return sendSession(reply, issued, session, 201);
  });

  app.post('/api/auth/login', {
    schema: {
      tags, summary: 'Sign in with email and password',
      body: Credentials,
      response: { 200: Type.Union([SessionBody, Type.Object({ mfa_required: Type.Literal(true), mfa_token: Type.String() })]), 401: ErrorBody, 429: ErrorBody },
    },
  }, async (request, reply) => {
    const result = await rpc.request(signInRpc, { ...request.body, address_key: addressKey(request, deps.addressHashKey) });
    if (result.status === 'mfa_required') return reply.header('cache-control', 'no-store').send({ mfa_required: true as const, mfa_token: result.mfa_token });
    return sendSession(reply, result.session, session);
  });

  app.post('/api/auth/mfa', {
    schema: { tags, summary: 'Finish a sign-in with an authenticator code or a recovery code', body: Type.Object({ mfa_token: Type.String({ minLength: 1 }), code: Type.String({ minLength: 1, maxLength: 32 }) }), response: { 200: SessionBody } },
  }, async (request, reply) => {
    const issued = await rpc.request(signInMfaRpc, { ...request.body, address_key: addressKey(request, deps.addressHashKey) });
    return sendSession(reply, issued, session);
  });

  app.post('/api/auth/refresh', {
    schema: { tags, summary: 'Trade the refresh cookie for a new session (the cookie rotates)', response: { 200: SessionBody, 401: ErrorBody } },
  }, async (request, reply) => {
    const token = request.cookies[refreshCookie];
    if (!token) throw new AppError('invalid_token', 'No session found.');
    try {
      return await sendSession(reply, await rpc.request(refreshRpc, { refresh_token: token }), session);
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_token') clearSessionCookie(reply, session);
      throw error;
    }
  });

  app.post('/api/auth/logout', { schema: { tags, summary: 'End this session' } }, async (request, reply) => {
    const token = request.cookies[refreshCookie];
    if (token) await rpc.request(signOutRpc, { refresh_token: token });
    clearSessionCookie(reply, session);
    return reply.status(204).send();
  });

  app.post('/api/auth/verify', {
    schema: { tags, summary: 'Confirm an email address with the link token; signs the person in', body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }), response: { 200: SessionBody, 404: ErrorBody, 410: ErrorBody } },
  }, async (request, reply) => sendSession(reply, await rpc.request(verifyEmailRpc, request.body), session));

  app.post('/api/auth/resend-verification', {
    schema: { tags, summary: 'Send a new verification link to the signed-in person', security: [{ bearer: [] }], response: { 200: Type.Object({ sent: Type.Boolean() }) } },
  }, async (request) => rpc.request(resendVerificationRpc, {}, requireSignedIn(request)));

  app.post('/api/auth/password/forgot', {
    schema: { tags, summary: 'Email a password reset link (the answer is the same whether or not the account exists)', body: Type.Object({ email: Type.String({ maxLength: 254 }) }), response: { 202: Type.Object({}) } },
  }, async (request, reply) => {
    await rpc.request(forgotPasswordRpc, { email: request.body.email, address_key: addressKey(request, deps.addressHashKey) });
    return reply.status(202).send({});
  });

  app.post('/api/auth/password/reset', {
    schema: { tags, summary: 'Set a new password with the emailed token; ends every session', body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }), password: Type.String({ maxLength: 1024 }) }) },
  }, async (request, reply) => {
    await rpc.request(resetPasswordRpc, request.body);
    return reply.status(204).send();
  });
}
