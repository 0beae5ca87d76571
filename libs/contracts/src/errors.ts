/**
 * Stable error codes shared by every service and the web app. Only the gateway turns a code into
 * an HTTP status (see `httpStatusFor`); services answer RPCs with the code.
 */
export const ErrorStatus = {
  bad_request: 400,
  validation_failed: 400,
  unknown_plan: 400,
  not_signed_in: 401,
  payment_declined: 402,
  invalid_credentials: 401,
  invalid_token: 401,
  mfa_required: 401,
  forbidden: 403,
  /** The action needs a verified e-mail address (two-factor set-up, claiming a purchase). */
  email_unverified: 403,
  no_entitlement: 403,
  /** The organization is suspended by the service operator (not by its plan): support can help. */
  suspended_by_operator: 403,
  /** A device's suspension was made at a higher level (operator > organization > its person) than the caller's. */
  suspended_by_higher_level: 403,
  /** The person's account is suspended by the service operator (issue #26): no device of theirs may be added or switched on. */
  account_suspended: 403,
  not_found: 404,
  link_expired: 410,
  /** A one-use link opened again (a verification link already spent): not the same as expired. */
  link_used: 410,
  /** A server's enrolment token past its hour (or replaced by a newer one): the console gives a new one. */
  token_expired: 410,
  conflict: 409,
  already_exists: 409,
  email_mismatch: 409,
  quota_exceeded: 409,
  /** The device's chosen region has no server with room (issue #23): another region or Automatic may. */
  region_full: 409,
  /** A WireGuard public key names one peer: another device already has it. */
  public_key_in_use: 409,
  /** The admin list: an operator may not take their own address off it. */
  cannot_remove_self: 409,
  /** The admin list: the last address that grants admin stays. */
  last_admin: 409,
  /** A server's name is another server's (retired ones keep theirs). */
  name_taken: 409,
  /** A server's enrolment token used once already: a second host may not enrol with it. */
  token_used: 409,
  /** A server still has devices on it: drain it before it is retired. */
  node_not_empty: 409,
  unprocessable: 422,
  /** A device's custom split-tunnel routes: one is not a network, none was given, or too many. */
  invalid_routes: 422,
  weak_password: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
  timeout: 504,
} as const;

export type ErrorCode = keyof typeof ErrorStatus;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ErrorStatus, value);
}

export function httpStatusFor(code: ErrorCode): number {
  return ErrorStatus[code];
}

/** The one error type of the product: a stable code and a message a person can read. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return httpStatusFor(this.code);
  }

  toJSON(): ErrorBody {
    return { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) };
  }
}

export type ErrorBody = { code: ErrorCode; message: string; details?: Record<string, unknown> };
