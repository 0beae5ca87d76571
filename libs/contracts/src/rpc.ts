import { Type, type Static, type TSchema } from 'typebox';
import { AppError, isErrorCode, type ErrorBody } from './errors.ts';

/**
 * Who is asking. The gateway attaches this to every request it forwards so that services can
 * check authorization on their own data again.
 */
export const CallerSchema = Type.Object({
  userId: Type.Union([Type.String(), Type.Null()]),
  accountType: Type.Union([Type.String(), Type.Null()]),
  isAdmin: Type.Boolean(),
  emailVerified: Type.Boolean(),
});
export type Caller = Static<typeof CallerSchema>;
export const anonymousCaller: Caller = { userId: null, accountType: null, isAdmin: false, emailVerified: false };

export type RpcContract<Req extends TSchema = TSchema, Res extends TSchema = TSchema> = {
  /** Subject without any namespace prefix, `<owner>.rpc.<verb>`. */
  subject: string;
  request: Req;
  response: Res;
};

export function defineRpc<Req extends TSchema, Res extends TSchema>(subject: string, request: Req, response: Res): RpcContract<Req, Res> {
  return { subject, request, response };
}

/** What travels on the wire for a request: the payload plus the caller. */
export type RpcRequestFrame<T> = { caller: Caller; data: T };
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
