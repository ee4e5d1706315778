/**
 * An error the API answers with on purpose: a status, a stable machine code and a human
 * message, turned into `{"error": code, "message": …}` (plus `extra`) at the edge.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;
  readonly omitMessage: boolean;

  constructor(
    status: number,
    code: string,
    message: string,
    opts: { extra?: Record<string, unknown>; headers?: Record<string, string>; omitMessage?: boolean } = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.extra = opts.extra ?? {};
    this.headers = opts.headers ?? {};
    this.omitMessage = opts.omitMessage ?? false;
  }

  /** The response body: the spec's `policy_violation` shape or `{error, message}`. */
  body(): Record<string, unknown> {
    return this.omitMessage
      ? { error: this.code, ...this.extra }
      : { error: this.code, message: this.message, ...this.extra };
  }
}

export const badRequest = (message: string, extra?: Record<string, unknown>) =>
  new HttpError(400, 'bad_request', message, { extra });
export const unauthenticated = (
  message = 'authentication required: send X-API-Key or Authorization: Bearer',
) => new HttpError(401, 'unauthenticated', message, { headers: { 'www-authenticate': 'Bearer' } });
export const forbidden = (message: string) => new HttpError(403, 'forbidden', message);
export const notFound = (message: string) => new HttpError(404, 'not_found', message);
export const conflict = (message: string) => new HttpError(409, 'conflict', message);

/** The spec's 403 body, exactly: `{"error":"policy_violation","violations":[{code,message}…]}`. */
export const policyViolation = (violations: { code: string; message: string }[]) =>
  new HttpError(403, 'policy_violation', violations.map((v) => v.message).join('; '), {
    extra: { violations },
    omitMessage: true,
  });
