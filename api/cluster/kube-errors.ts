import { HttpError } from '../errors/index.ts';

interface Status {
  message?: string;
  reason?: string;
  details?: { causes?: { field?: string; message?: string }[]; retryAfterSeconds?: number };
}

/** The apiserver's status code of a failed client-node call, if it was one. */
export function statusCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

function status(err: unknown): Status {
  const body = (err as { body?: unknown }).body;
  if (typeof body === 'string') {
    try {
      const parsed = JSON.parse(body) as unknown;
      return typeof parsed === 'object' && parsed !== null ? parsed : { message: body };
    } catch {
      return { message: body };
    }
  }
  return typeof body === 'object' && body !== null ? body : {};
}

/**
 * Transport failures that mean "the apiserver is busy or away", not "the request is wrong":
 * refused or dropped connections, DNS, timeouts, and HTTP/2 flow control refusals such as
 * NGHTTP2_ENHANCE_YOUR_CALM (the apiserver throttling a client that opens too many streams).
 */
const UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ERR_HTTP2_STREAM_ERROR',
  'ERR_HTTP2_SESSION_ERROR',
  'ERR_HTTP2_GOAWAY_SESSION',
]);

function transportCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (UNAVAILABLE.has(code) || code.startsWith('NGHTTP2_'))) return code;
    const message = (e as { message?: unknown }).message;
    const nghttp2 = typeof message === 'string' ? /NGHTTP2_[A-Z_]+/.exec(message) : null;
    if (nghttp2) return nghttp2[0];
  }
  return undefined;
}

/** Seconds the apiserver asked us to wait (Retry-After or the Status's retryAfterSeconds), else 1. */
function retryAfter(err: unknown, s: Status): string {
  const headers = (err as { headers?: Record<string, unknown> }).headers ?? {};
  const header = headers['retry-after'] ?? headers['Retry-After'];
  const seconds = Number(header ?? s.details?.retryAfterSeconds);
  return String(Number.isInteger(seconds) && seconds > 0 ? Math.min(seconds, 60) : 1);
}

const unavailable = (message: string, after: string) =>
  new HttpError(503, 'cluster_unavailable', message, { headers: { 'retry-after': after } });

/**
 * The one mapping of apiserver failures to the API's answers, so that a refusal by the
 * cluster is never a 500: 404 → 404, 409 → 409, 400/422 → 400 with the apiserver's field
 * causes, 403 → 403 naming what the service may not do, throttling (429) and unavailability
 * (5xx, transport errors) → 503 with Retry-After. Undefined when `err` did not come from
 * the apiserver (a bug of ours: the caller logs it and answers 500).
 */
export function kubeHttpError(err: unknown, what?: string): HttpError | undefined {
  if (err instanceof HttpError) return err;
  const code = statusCode(err);
  const prefix = what ? `${what}: ` : '';
  if (code === undefined) {
    const transport = transportCode(err);
    return transport
      ? unavailable(`${prefix}the Kubernetes API is unavailable (${transport}); retry shortly`, '1')
      : undefined;
  }
  const s = status(err);
  const message = s.message ?? s.reason ?? `HTTP ${code}`;
  switch (code) {
    case 400:
    case 422: {
      const fields = (s.details?.causes ?? []).map((c) => ({
        path: c.field ?? '',
        message: c.message ?? '',
      }));
      return new HttpError(400, 'invalid_request', `${prefix}${message}`, { extra: { fields } });
    }
    case 403:
      return new HttpError(
        403,
        'forbidden',
        `${prefix}the service is not allowed to do this in the cluster: ${message}`,
      );
    case 404:
      return new HttpError(404, 'not_found', `${prefix}${message}`);
    case 409:
      return new HttpError(409, 'conflict', `${prefix}${message}`);
    case 413:
      return new HttpError(413, 'payload_too_large', `${prefix}${message}`);
    case 429:
      return unavailable(
        `${prefix}the Kubernetes API is throttling the service; retry shortly`,
        retryAfter(err, s),
      );
  }
  if (code >= 500 || code === 401 || code === 408) {
    // 401: the apiserver no longer accepts the service's own credentials (a rotated token).
    return unavailable(
      `${prefix}the Kubernetes API could not serve this (HTTP ${code}); retry shortly`,
      retryAfter(err, s),
    );
  }
  // Any other 4xx is a request the apiserver could not take: the caller's to change.
  return new HttpError(400, 'invalid_request', `${prefix}${message}`);
}

/**
 * `kubeHttpError` with context for the message, for call sites that rethrow: an error
 * that did not come from the apiserver is passed on unchanged.
 */
export function fromKube(err: unknown, what: string): Error {
  return kubeHttpError(err, what) ?? (err instanceof Error ? err : new Error(String(err)));
}
