// How the tools reach the HTTP API: one `dispatch` of a Request with the caller's credential
// already on it. The API serves MCP with a dispatch into its own Hono app; `sbx mcp` with a
// fetch to the API carrying the user's key. Either way every tool call is an ordinary API
// call: the same authentication, validation, owner-or-admin check, limits and audit.

/** Sends one request to the API as the caller and answers with its response. */
export type Dispatch = (request: Request) => Promise<Response>;

export interface ApiTarget {
  /** The API's `/api/v1` URL as the MCP client reaches it: the base of calls and preview URLs. */
  base: string;
  dispatch: Dispatch;
  /** The namespace of calls that name none (else the API's default). */
  namespace?: string;
  /** Aborts every call in flight: the MCP request's own client went away. */
  signal?: AbortSignal;
}

/** A refusal of the API: its status and its body's `error` code and `message`. */
export class ApiFailure extends Error {
  override name = 'ApiFailure';
  readonly status: number;
  readonly code: string;
  readonly body: Record<string, unknown>;

  constructor(status: number, body: Record<string, unknown>) {
    const code = typeof body.error === 'string' ? body.error : `http_${status}`;
    super(typeof body.message === 'string' ? body.message : `the API answered ${status}`);
    this.status = status;
    this.code = code;
    this.body = { ...body, error: code, message: this.message };
  }
}

export interface CallOptions {
  query?: Record<string, string | undefined>;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as it is (application/octet-stream unless `headers` say otherwise). */
  body?: Uint8Array | string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** The API as the tools use it: paths under `/api/v1`, refusals thrown as `ApiFailure`. */
export class Api {
  readonly #target: ApiTarget;

  constructor(target: ApiTarget) {
    this.#target = { ...target, base: target.base.replace(/\/+$/, '') };
  }

  /** The absolute URL of `path` (under `/api/v1`) with `query`'s defined entries. */
  url(path: string, query: Record<string, string | undefined> = {}): string {
    const url = new URL(this.#target.base + path);
    const namespace = query.namespace ?? this.#target.namespace;
    for (const [k, v] of Object.entries({ ...query, namespace }))
      if (v !== undefined) url.searchParams.set(k, v);
    return url.toString();
  }

  /** The response of a 2xx answer, its body unread; anything else thrown as `ApiFailure`. */
  async send(method: string, path: string, opts: CallOptions = {}): Promise<Response> {
    const headers = new Headers(opts.headers);
    let body: RequestInit['body'];
    if (opts.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(opts.json);
    } else if (opts.body !== undefined) {
      if (!headers.has('content-type')) headers.set('content-type', 'application/octet-stream');
      body = opts.body as RequestInit['body'];
    }
    const signals = [opts.signal, this.#target.signal].filter((s): s is AbortSignal => s !== undefined);
    const res = await this.#target.dispatch(
      new Request(this.url(path, opts.query), {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        ...(signals.length > 0 ? { signal: AbortSignal.any(signals) } : {}),
      }),
    );
    if (res.ok) return res;
    throw new ApiFailure(res.status, await errorBody(res));
  }

  /** A 2xx answer's JSON body. */
  async json<T = Record<string, unknown>>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
    const res = await this.send(method, path, opts);
    if (res.status === 204) return {} as T;
    return (await res.json()) as T;
  }
}

/** The API's `{error, message}` body, or the text of anything else (a proxy's page). */
async function errorBody(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // not JSON
  }
  return { message: text.slice(0, 1024) || `the API answered ${res.status}` };
}

/** `/sandboxes/{id}` with the name escaped. */
export const sandboxPath = (id: string, rest = '') => `/sandboxes/${encodeURIComponent(id)}${rest}`;

/** A file's path under `/files/`, each segment escaped. */
export const filePath = (id: string, path: string) =>
  sandboxPath(id, `/files/${path.replace(/^\/+/, '').split('/').map(encodeURIComponent).join('/')}`);
