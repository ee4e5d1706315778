// The API's refusals as exceptions: one class per status a caller acts on differently, all
// carrying the body's `error` code and `message` (the API's `{"error", "message"}` bodies).
import type { components } from './generated/openapi.ts';

type Schemas = components['schemas'];
export type Violation = Schemas['PolicyViolation']['violations'][number];

/** Any answer of the API outside 2xx; `body` is the parsed JSON body (or its text). */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  /** The body's `error` field (`not_found`, `policy_violation`, …), or `http_<status>`. */
  readonly code: string;
  readonly body: unknown;
  readonly headers: Headers;

  constructor(status: number, code: string, message: string, body: unknown, headers: Headers) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body;
    this.headers = headers;
  }
}

/** 401: no valid X-API-Key or bearer token. */
export class UnauthorizedError extends ApiError {
  override name = 'UnauthorizedError';
}

/** 403: not the owner nor an admin, or a policy refuses it (then `violations` lists why). */
export class ForbiddenError extends ApiError {
  override name = 'ForbiddenError';
  readonly violations: Violation[];

  constructor(status: number, code: string, message: string, body: unknown, headers: Headers) {
    super(status, code, message, body, headers);
    this.violations = code === 'policy_violation' ? violationsOf(body) : [];
  }
}

/** 404: no such sandbox, port, policy, key or namespace. */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}

/** 409: conflicts with the current state (exists already, not running, changed meanwhile). */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}

/** 424: the sandbox is not configured yet (invoke before configure). */
export class FailedDependencyError extends ApiError {
  override name = 'FailedDependencyError';
}

/** 429: too many in flight; `retryAfter` is the server's Retry-After in seconds, if sent. */
export class TooManyRequestsError extends ApiError {
  override name = 'TooManyRequestsError';
  readonly retryAfter: number | undefined;

  constructor(status: number, code: string, message: string, body: unknown, headers: Headers, now: number) {
    super(status, code, message, body, headers);
    this.retryAfter = parseRetryAfter(headers.get('retry-after'), now);
  }
}

/**
 * Retry-After in whole seconds: delay-seconds as sent, an HTTP-date as the seconds from
 * `now` (never negative); undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  // An HTTP-date starts with the day's name (IMF-fixdate and the two obsolete forms).
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

function violationsOf(body: unknown): Violation[] {
  if (typeof body !== 'object' || body === null || !('violations' in body)) return [];
  const list = body.violations;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (v): v is Violation =>
      typeof v === 'object' &&
      v !== null &&
      typeof (v as Violation).code === 'string' &&
      typeof (v as Violation).message === 'string',
  );
}

function field(body: unknown, name: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The exception for a non-2xx answer. A body that is not the API's JSON (a proxy's HTML page,
 * say) still yields an error with `http_<status>` as its code and the text as its message.
 */
export function errorFromResponse(
  status: number,
  headers: Headers,
  body: unknown,
  now: number = Date.now(),
): ApiError {
  const code = field(body, 'error') ?? `http_${status}`;
  let message = field(body, 'message');
  if (message === undefined && code === 'policy_violation') {
    message = violationsOf(body)
      .map((v) => `${v.code}: ${v.message}`)
      .join('; ');
  }
  if (message === undefined || message === '') {
    message = typeof body === 'string' && body !== '' ? body.slice(0, 1024) : `HTTP ${status}`;
  }
  switch (status) {
    case 401:
      return new UnauthorizedError(status, code, message, body, headers);
    case 403:
      return new ForbiddenError(status, code, message, body, headers);
    case 404:
      return new NotFoundError(status, code, message, body, headers);
    case 409:
      return new ConflictError(status, code, message, body, headers);
    case 424:
      return new FailedDependencyError(status, code, message, body, headers);
    case 429:
      return new TooManyRequestsError(status, code, message, body, headers, now);
    default:
      return new ApiError(status, code, message, body, headers);
  }
}
