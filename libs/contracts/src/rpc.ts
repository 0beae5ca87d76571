import { Type, type Static, type TSchema } from 'typebox';
import { AppError, isErrorCode, type ErrorBody } from './errors.ts';

/**
 * Who is asking. A service never takes this from the request as sent: the gateway signs an
 * assertion of it (a short-lived caller token, see the platform's caller-tokens) and the
 * receiving service verifies that itself. A request without an assertion is anonymous.
 */
export const CallerSchema = Type.Object({
  userId: Type.Union([Type.String(), Type.Null()]),
  accountType: Type.Union([Type.String(), Type.Null()]),
  isAdmin: Type.Boolean(),
  emailVerified: Type.Boolean(),
});
export type Caller = Static<typeof CallerSchema> & {
  /** The signed assertion this caller arrived with; requests made on their behalf carry it on. */
  readonly assertion?: string | undefined;
};
export const anonymousCaller: Caller = { userId: null, accountType: null, isAdmin: false, emailVerified: false };

export type RpcContract<Req extends TSchema = TSchema, Res extends TSchema = TSchema> = {
  /** Subject without any namespace prefix, `<owner>.rpc.<verb>` (or a template with `{node}`, see subjects.ts). */
  subject: string;
  request: Req;
  response: Res;
  /**
   * The gateway sends this RPC's answers to the browser as they arrive, unparsed: the service
   * writes them through the response schema (only what it names, as the gateway's route would),
   * and the gateway's route answers with the same schema (checked when the route is registered).
   */
  forwarded?: true;
};

export function defineRpc<Req extends TSchema, Res extends TSchema>(
  subject: string,
  request: Req,
  response: Res,
  options: { forwarded?: true } = {},
): RpcContract<Req, Res> {
  return { subject, request, response, ...options };
}

/** What travels on the wire for a request: the payload and, for a person, the gateway's signed assertion. */
export type RpcRequestFrame<T> = { caller_token?: string; data: T };
/** What travels back: a result or a coded error, never a stack trace. */
export type RpcReplyFrame<T> = { ok: true; data: T } | { ok: false; error: ErrorBody };

export function isRpcReplyFrame(value: unknown): value is RpcReplyFrame<unknown> {
  if (typeof value !== 'object' || value === null || !('ok' in value)) return false;
  const frame = value as { ok: unknown; error?: { code?: unknown } };
  if (frame.ok === true) return 'data' in frame;
  return frame.ok === false && isErrorCode(frame.error?.code);
}

/** The caller's user id, or the spec's 'Not signed in' refusal: the first line of every user RPC. */
export function requireUserId(caller: Caller): string {
  if (!caller.userId) throw new AppError('not_signed_in', 'Not signed in');
  return caller.userId;
}

/**
 * The admin console's check, on the gateway and again in the service that answers. Identity grants
 * the admin claim only to a verified address; an assertion that says admin without it is refused too.
 */
export function requireAdmin(caller: Caller): string {
  const userId = requireUserId(caller);
  if (!caller.isAdmin || !caller.emailVerified)
    throw new AppError('forbidden', 'This is for platform administrators only.');
  return userId;
}
