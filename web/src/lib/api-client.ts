import type { ErrorCode } from '@qw/contracts';
import { apiBaseUrl } from '../config/env';

/**
 * The one HTTP client of the web app. Every feature's request file calls `api.*`; nothing else
 * calls `fetch` for the API. It sends and reads JSON, includes cookies, adds a bearer token when
 * the auth feature has plugged in a provider, and turns the gateway's error shape
 * `{ "error": { "code", "message", "details"? } }` into an `ApiError`.
 */

/** `status` is 0 when the request never got an answer (offline, DNS, connection reset). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  /** The raw answer text, for messages that must quote it. */
  readonly body: string;

  constructor(status: number, code: string, message: string, details?: Record<string, unknown>, body = '') {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.body = body;
  }

  get isNetworkError(): boolean {
    return this.status === 0;
  }

  get isServerError(): boolean {
    return this.status >= 500;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

/** The API refused with this code. Screens decide by code (`libs/contracts/src/errors.ts`), never by message text. */
export function hasErrorCode(value: unknown, code: ErrorCode): value is ApiError {
  return value instanceof ApiError && value.code === code;
}

/**
 * What a screen says about a failed request: the server's own message when it refused the request
 * (4xx) and the client's connection message when no answer came (unless `network: false`);
 * `fallback` for a server error or anything that is not an ApiError.
 */
export function failureMessage(
  error: unknown,
  fallback: string,
  { network = true }: { network?: boolean } = {},
): string {
  if (!isApiError(error) || error.isServerError || (error.isNetworkError && !network)) return fallback;
  return error.message;
}

type MaybePromise<T> = T | Promise<T>;
export type AccessTokenProvider = () => MaybePromise<string | null | undefined>;
/**
 * Called with a 401 answer. Resolving to `true` means "the session was renewed, send the request
 * again": the client then retries it once with the new token. Anything else lets the error through.
 */
export type UnauthorizedHandler = (error: ApiError) => MaybePromise<boolean | undefined>;

let accessTokenProvider: AccessTokenProvider | null = null;
let unauthorizedHandler: UnauthorizedHandler | null = null;

/** The auth feature plugs in where the current access token comes from; `null` removes it. */
export function setAccessTokenProvider(provider: AccessTokenProvider | null): void {
  accessTokenProvider = provider;
}

/**
 * Called with every 401 answer (unless a request opts out), e.g. to renew an expired access token
 * and retry, or to clear the session.
 */
export function setUnauthorizedHandler(handler: UnauthorizedHandler | null): void {
  unauthorizedHandler = handler;
}

export type QueryValue = string | number | boolean | null | undefined;

export type RequestOptions = {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Sent as JSON. `undefined` sends no body. */
  body?: unknown;
  query?: Record<string, QueryValue>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** For requests where a 401 is an expected answer (sign-in itself). */
  skipUnauthorizedHandler?: boolean;
  /**
   * Send no bearer token (the auth endpoints: an expired token must not make sign-in fail). With no
   * token sent there is none to renew, so a 401 does not reach the unauthorized handler either.
   */
  skipAuth?: boolean;
  /** Let the request outlive the page (a report sent as the visitor navigates away). */
  keepalive?: boolean;
  /** 'include' unless a request must carry no cookie at all ('omit'). */
  credentials?: RequestCredentials;
};

export function buildUrl(path: string, query?: Record<string, QueryValue>): string {
  const url = `${apiBaseUrl}${path}`;
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.set(key, String(value));
  }
  const search = params.toString();
  return search ? `${url}${url.includes('?') ? '&' : '?'}${search}` : url;
}

export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  try {
    return await sendOnce<T>(path, options);
  } catch (error) {
    if (
      !(error instanceof ApiError) ||
      error.status !== 401 ||
      options.skipAuth ||
      options.skipUnauthorizedHandler ||
      !unauthorizedHandler
    )
      throw error;
    // One renewal and one retry at most: a second 401 goes to the caller.
    const retry = await unauthorizedHandler(error);
    if (retry !== true) throw error;
    return sendOnce<T>(path, options);
  }
}

async function sendOnce<T>(path: string, options: RequestOptions): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const token = accessTokenProvider && !options.skipAuth ? await accessTokenProvider() : null;
  if (token) headers.Authorization = `Bearer ${token}`;

  let response: Response;
  try {
    response = await fetch(buildUrl(path, options.query), {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: options.credentials ?? 'include',
      keepalive: options.keepalive,
      signal: options.signal,
    });
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
    throw new ApiError(0, 'network_error', 'We couldn’t reach Quietwire. Check your connection and try again.');
  }

  const text = await response.text();
  if (!response.ok) throw toApiError(response, text);
  if (text === '') return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ApiError(
      response.status,
      'invalid_response',
      'The server sent an answer we couldn’t read.',
      undefined,
      text,
    );
  }
}

function toApiError(response: Response, text: string): ApiError {
  const fallbackMessage = response.statusText || `Request failed with status ${response.status}`;
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; details?: unknown } };
    const error = parsed?.error;
    if (error && typeof error === 'object') {
      const code = typeof error.code === 'string' ? error.code : `http_${response.status}`;
      const message = typeof error.message === 'string' && error.message ? error.message : fallbackMessage;
      const details =
        error.details && typeof error.details === 'object' ? (error.details as Record<string, unknown>) : undefined;
      return new ApiError(response.status, code, message, details, text);
    }
  } catch {
    // Not JSON (a proxy's HTML error page, for example): keep the status and the raw text.
  }
  return new ApiError(response.status, `http_${response.status}`, fallbackMessage, undefined, text);
}

export const api = {
  get: <T>(path: string, options?: Omit<RequestOptions, 'method' | 'body'>) =>
    apiRequest<T>(path, { ...options, method: 'GET' }),
  post: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'method' | 'body'>) =>
    apiRequest<T>(path, { ...options, method: 'POST', body }),
  put: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'method' | 'body'>) =>
    apiRequest<T>(path, { ...options, method: 'PUT', body }),
  patch: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'method' | 'body'>) =>
    apiRequest<T>(path, { ...options, method: 'PATCH', body }),
  delete: <T>(path: string, options?: Omit<RequestOptions, 'method' | 'body'>) =>
    apiRequest<T>(path, { ...options, method: 'DELETE' }),
};
