// The typed client: one method per operation of api/openapi.json, named by its operationId,
// its parameters, bodies and answers typed by the generated `operations`. Requests go through
// openapi-fetch; anything outside 2xx is thrown as an ApiError subclass.
import createFetchClient, { type Client } from 'openapi-fetch';
import { errorFromResponse } from './errors.ts';
import type { components, operations, paths } from './generated/openapi.ts';
import { sseEventNames, type SseEvents } from './generated/sse-events.ts';
import { retrying, sleep, type FetchLike, type RetryOptions } from './retry.ts';
import { resumingEvents, type AttachOptions, type RunEvents } from './runs.ts';
import { EventStream, type StreamEvent } from './sse.ts';
import { connectTerminal, type TerminalSession } from './terminal.ts';

export type Schemas = components['schemas'];
export type Sandbox = Schemas['Sandbox'];
export type Phase = NonNullable<NonNullable<Sandbox['status']>['phase']>;
export type InvokeEvents = SseEvents['invokeSandbox'];
export type ConfigureEvents = SseEvents['configureSandbox'];
export type ExecEvents = SseEvents['execSandbox'];
export type LogEvents = SseEvents['getSandboxLogs'];
export type UsageEvents = SseEvents['getSandboxUsage'];
export type SandboxUsage = Schemas['SandboxUsage'];
export type WatchEvents = SseEvents['listSandboxes'];

/** Where every route of the document lives under the API's origin (its `servers` entry). */
export const API_PREFIX = '/api/v1';

export interface ClientOptions {
  /** The API's origin (`http://127.0.0.1:8080`); `/api/v1` is added unless it ends with it. */
  baseUrl: string;
  /** Sent as X-API-Key. */
  apiKey?: string;
  /** An OIDC token, sent as `Authorization: Bearer …`. */
  token?: string;
  /** The namespace of calls that do not name one (the API's default otherwise). */
  namespace?: string;
  /** Opt-in: 429 answers are retried after their Retry-After. */
  retry?: RetryOptions;
  /** Another fetch (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

/** What every call on one namespace accepts. */
export interface CallOptions {
  namespace?: string;
  signal?: AbortSignal;
}

export interface TerminalOptions extends CallOptions {
  /** Default 80 × 24. */
  cols?: number;
  rows?: number;
  /** A program to run instead of the shell (with `sh -c`). */
  command?: string;
}

export interface WaitOptions extends CallOptions {
  /** Default 120 000. */
  timeoutMs?: number;
  /** Between two reads; default 500. */
  intervalMs?: number;
}

export type DetachedRun = Schemas['DetachedRun'];
export type RunSummary = Schemas['RunSummary'];

export interface InvokeOptions extends CallOptions {
  /** Caps this invoke (a duration such as `30s`); never above the agent's defaultInvokeTimeout. */
  timeout?: string;
  /** Answer with the run's id at once; the run goes on without a client. */
  detach?: boolean;
}

/** Stdin of an invoke: bytes as they are, a string as UTF-8, or a stream read as sent. */
export type InvokeInput = string | Uint8Array | ArrayBuffer | Blob | ReadableStream<Uint8Array>;

type Query<K extends keyof operations> = NonNullable<operations[K]['parameters']['query']>;
type JsonBody<K extends keyof operations> = operations[K] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** The JSON body of an operation's 2xx answer, as the document declares it. */
type Success<K extends keyof operations> = {
  [C in keyof operations[K]['responses']]: C extends 200 | 201 | 202
    ? operations[K]['responses'][C] extends { content: { 'application/json': infer B } }
      ? B
      : never
    : never;
}[keyof operations[K]['responses']];

/** The unwrapped data of a 2xx answer, or the thrown ApiError. */
function ok<D>(r: { data?: D; error?: unknown; response: Response }): D {
  if (!r.response.ok) throw errorFromResponse(r.response.status, r.response.headers, r.error);
  return r.data as D;
}

export class SvcClient {
  /** The openapi-fetch client underneath (typed by `paths`), for what the methods do not cover. */
  readonly raw: Client<paths>;
  readonly #base: string;
  readonly #headers: Record<string, string>;
  readonly #namespace: string | undefined;
  readonly #fetch: FetchLike;

  constructor(options: ClientOptions) {
    if (options.apiKey !== undefined && options.token !== undefined) {
      throw new Error('give apiKey or token, not both');
    }
    const origin = options.baseUrl.replace(/\/+$/, '');
    this.#base = origin.endsWith(API_PREFIX) ? origin : origin + API_PREFIX;
    this.#headers = {};
    if (options.apiKey !== undefined) this.#headers['x-api-key'] = options.apiKey;
    if (options.token !== undefined) this.#headers.authorization = `Bearer ${options.token}`;
    this.#namespace = options.namespace;
    // Looked up at call time, so a fetch patched in later (tests, polyfills) is the one used.
    const send: FetchLike = options.fetch ?? ((request) => globalThis.fetch(request));
    this.#fetch = options.retry ? retrying(send, options.retry) : send;
    this.raw = createFetchClient<paths>({ baseUrl: this.#base, headers: this.#headers, fetch: this.#fetch });
  }

  #query<Q extends object>(opts: CallOptions & Q): Q & { namespace?: string } {
    const { signal: _signal, namespace, ...rest } = opts;
    const ns = namespace ?? this.#namespace;
    return (ns === undefined ? rest : { ...rest, namespace: ns }) as Q & { namespace?: string };
  }

  // Sandboxes

  async listSandboxes(opts: CallOptions & Query<'listSandboxes'> = {}): Promise<Success<'listSandboxes'>> {
    // The document also types the answer as the watch's events; without watch it is JSON.
    return ok(
      await this.raw.GET('/sandboxes', { params: { query: this.#query(opts) }, signal: opts.signal }),
    ) as Success<'listSandboxes'>;
  }

  /**
   * `GET /sandboxes?watch=true`: each visible sandbox as `added`, then `added`, `modified` and
   * `deleted` as they change, until `opts.signal` aborts (or the stream is left).
   */
  async watchSandboxes(
    opts: CallOptions & Pick<Query<'listSandboxes'>, 'mode'> = {},
  ): Promise<EventStream<WatchEvents>> {
    const stream = ok(
      await this.raw.GET('/sandboxes', {
        params: { query: { ...this.#query(opts), watch: 'true' } },
        headers: { accept: 'text/event-stream' },
        parseAs: 'stream',
        signal: opts.signal,
      }),
    );
    return new EventStream<WatchEvents>(streamOf(stream), sseEventNames.listSandboxes, {
      signal: opts.signal,
    });
  }

  async createSandbox(
    body: JsonBody<'createSandbox'>,
    opts: CallOptions = {},
  ): Promise<Success<'createSandbox'>> {
    return ok(
      await this.raw.POST('/sandboxes', { params: { query: this.#query(opts) }, body, signal: opts.signal }),
    );
  }

  async getSandbox(id: string, opts: CallOptions = {}): Promise<Success<'getSandbox'>> {
    return ok(
      await this.raw.GET('/sandboxes/{id}', {
        params: { path: { id }, query: this.#query(opts) },
        signal: opts.signal,
      }),
    );
  }

  async deleteSandbox(id: string, opts: CallOptions = {}): Promise<Success<'deleteSandbox'>> {
    return ok(
      await this.raw.DELETE('/sandboxes/{id}', {
        params: { path: { id }, query: this.#query(opts) },
        signal: opts.signal,
      }),
    );
  }

  async stopSandbox(id: string, opts: CallOptions = {}): Promise<Success<'stopSandbox'>> {
    return ok(
      await this.raw.POST('/sandboxes/{id}/stop', {
        params: { path: { id }, query: this.#query(opts) },
        signal: opts.signal,
      }),
    );
  }

  async resumeSandbox(id: string, opts: CallOptions = {}): Promise<Success<'resumeSandbox'>> {
    return ok(
      await this.raw.POST('/sandboxes/{id}/resume', {
        params: { path: { id }, query: this.#query(opts) },
        signal: opts.signal,
      }),
    );
  }

  async cloneSandbox(
    id: string,
    body: JsonBody<'cloneSandbox'> = {},
    opts: CallOptions = {},
  ): Promise<Success<'cloneSandbox'>> {
    return ok(
      await this.raw.POST('/sandboxes/{id}/clone', {
        params: { path: { id }, query: this.#query(opts) },
        body,
        signal: opts.signal,
      }),
    );
  }

  /**
   * Reads the sandbox until its phase is `phase`; throws when it reaches Error instead, or
   * after `timeoutMs` (the message carries the last status seen).
   */
  async waitForPhase(id: string, phase: Phase, opts: WaitOptions = {}): Promise<Sandbox> {
    const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
    for (;;) {
      const s = await this.getSandbox(id, opts);
      const now = s.status?.phase;
      if (now === phase) return s;
      if (now === 'Error' && phase !== 'Error') {
        throw new Error(`sandbox ${id} is in phase Error: ${s.status?.message ?? 'no message'}`);
      }
      if (Date.now() >= deadline) {
        throw new Error(`sandbox ${id} not ${phase} in time; last status ${JSON.stringify(s.status ?? {})}`);
      }
      await sleep(opts.intervalMs ?? 500, opts.signal);
    }
  }

  // Ports and the preview

  async forwardPort(
    id: string,
    body: JsonBody<'forwardPort'>,
    opts: CallOptions = {},
  ): Promise<Success<'forwardPort'>> {
    return ok(
      await this.raw.POST('/sandboxes/{id}/ports', {
        params: { path: { id }, query: this.#query(opts) },
        body,
        signal: opts.signal,
      }),
    );
  }

  async unforwardPort(id: string, port: number, opts: CallOptions = {}): Promise<void> {
    ok(
      await this.raw.DELETE('/sandboxes/{id}/ports/{port}', {
        params: { path: { id, port }, query: this.#query(opts) },
        signal: opts.signal,
      }),
    );
  }

  /** The preview URL of a forwarded port (`path` without its leading slash is fine). */
  previewUrl(id: string, port: number, path = '', opts: Pick<CallOptions, 'namespace'> = {}): string {
    const ns = opts.namespace ?? this.#namespace;
    const [p = '', q] = path.replace(/^\/+/, '').split(/\?(.*)/s, 2);
    const query = new URLSearchParams(q);
    if (ns !== undefined) query.set('namespace', ns);
    const search = query.toString() === '' ? '' : `?${query.toString()}`;
    return `${this.#base}/sandboxes/${encodeURIComponent(id)}/preview/${port}/${p}${search}`;
  }

  /**
   * A one-use ticket for a browser: `url` (resolved against this client's base URL) opens
   * the port's preview in a new tab, where its first answer sets a cookie for that preview
   * path alone (docs/ports.md). Programs send their credential to `previewUrl` instead.
   */
  async createPreviewTicket(
    id: string,
    port: number,
    opts: CallOptions = {},
  ): Promise<Success<'createPreviewTicket'> & { absoluteUrl: string }> {
    const ticket = ok(
      await this.raw.POST('/sandboxes/{id}/ports/{port}/preview-ticket', {
        params: { path: { id, port }, query: this.#query(opts) },
        signal: opts.signal,
      }),
    );
    return { ...ticket, absoluteUrl: new URL(ticket.url, this.#base).toString() };
  }

  /**
   * A request to a server inside the sandbox through the preview proxy, with this client's
   * credential. The answer comes back as it is, whatever its status: a refusal of the API
   * (401, 403, 404, 409, 502) cannot be told apart from the sandbox's own answers by status.
   */
  async previewPort(
    id: string,
    port: number,
    path = '',
    init: RequestInit & { namespace?: string } = {},
  ): Promise<Response> {
    const { namespace, ...rest } = init;
    const headers = new Headers(rest.headers);
    for (const [k, v] of Object.entries(this.#headers)) headers.set(k, v);
    return this.#fetch(new Request(this.previewUrl(id, port, path, { namespace }), { ...rest, headers }));
  }

  // Agent mode

  /** Writes files, records the entrypoint, runs the install once; streams `log`, then `result` (or `error`). */
  async configureSandbox(
    id: string,
    body: JsonBody<'configureSandbox'>,
    opts: CallOptions = {},
  ): Promise<EventStream<ConfigureEvents>> {
    const stream = ok(
      await this.raw.POST('/sandboxes/{id}/configure', {
        params: { path: { id }, query: this.#query(opts) },
        body,
        headers: { accept: 'text/event-stream' },
        parseAs: 'stream',
        signal: opts.signal,
      }),
    );
    return new EventStream<ConfigureEvents>(streamOf(stream), sseEventNames.configureSandbox, {
      signal: opts.signal,
    });
  }

  /**
   * Runs the entrypoint with `input` as its stdin; streams `start` (with the invokeId), `log`,
   * `exit` and maybe `error`. Aborting `opts.signal` disconnects, which ends the run;
   * `cancelInvoke` ends it from anywhere and the stream then ends with exit reason `canceled`.
   * With `detach: true` the answer is the run's id at once and the run goes on without a
   * client (bounded by its timeout): `attach` reads its events, `cancelRun` ends it.
   */
  async invokeSandbox(
    id: string,
    input: InvokeInput | undefined,
    opts: InvokeOptions & { detach: true },
  ): Promise<DetachedRun>;
  async invokeSandbox(
    id: string,
    input?: InvokeInput,
    opts?: InvokeOptions & { detach?: false },
  ): Promise<EventStream<InvokeEvents>>;
  async invokeSandbox(
    id: string,
    input?: InvokeInput,
    opts: InvokeOptions = {},
  ): Promise<EventStream<InvokeEvents> | DetachedRun> {
    const { detach, timeout, ...call } = opts;
    const query = {
      ...this.#query(call),
      ...(timeout ? { timeout } : {}),
      ...(detach ? { detach: 'true' as const } : {}),
    };
    if (detach) {
      return ok(
        await this.raw.POST('/sandboxes/{id}/invoke', {
          params: { path: { id }, query },
          body: input as never,
          bodySerializer: (b: unknown) => b as RequestInit['body'],
          headers: { 'content-type': 'application/octet-stream' },
          signal: opts.signal,
          ...(input instanceof ReadableStream ? { duplex: 'half' } : {}),
        }),
      ) as DetachedRun;
    }
    const stream = ok(
      await this.raw.POST('/sandboxes/{id}/invoke', {
        params: { path: { id }, query },
        // Raw bytes, not JSON: the body is the entrypoint's stdin as sent.
        body: input as never,
        bodySerializer: (b: unknown) => b as RequestInit['body'],
        headers: { 'content-type': 'application/octet-stream', accept: 'text/event-stream' },
        parseAs: 'stream',
        signal: opts.signal,
        // A streamed body needs half duplex in Node's fetch (browsers ignore it).
        ...(input instanceof ReadableStream ? { duplex: 'half' } : {}),
      }),
    );
    return new EventStream<InvokeEvents>(streamOf(stream), sseEventNames.invokeSandbox, {
      signal: opts.signal,
    });
  }

  async cancelInvoke(id: string, invokeId: string, opts: CallOptions = {}): Promise<Success<'cancelInvoke'>> {
    return ok(
      await this.raw.POST('/sandboxes/{id}/invoke/cancel', {
        params: { path: { id }, query: this.#query(opts) },
        body: { invokeId },
        signal: opts.signal,
      }),
    );
  }

  // Code mode: exec and the template process's logs

  /**
   * Runs a command (a string runs with `sh -c`, an array is the argv) and answers once it
   * ends: its exit, and each of stdout and stderr up to 10 MiB (`truncated` beyond).
   * Aborting `opts.signal` ends the command, as a disconnect does.
   */
  async execSandbox(
    id: string,
    body: JsonBody<'execSandbox'>,
    opts: CallOptions & { detach: true },
  ): Promise<DetachedRun>;
  async execSandbox(
    id: string,
    body: JsonBody<'execSandbox'>,
    opts?: CallOptions & { detach?: false },
  ): Promise<Schemas['ExecResult']>;
  /** With `detach: true` (which needs `body.timeout`): the run's id at once, as `invokeSandbox`'s. */
  async execSandbox(
    id: string,
    body: JsonBody<'execSandbox'>,
    opts: CallOptions & { detach?: boolean } = {},
  ): Promise<Schemas['ExecResult'] | DetachedRun> {
    const { detach, ...call } = opts;
    // The 200 answer is JSON unless the request accepts text/event-stream, which this one does not.
    return ok(
      await this.raw.POST('/sandboxes/{id}/exec', {
        params: {
          path: { id },
          query: { ...this.#query(call), ...(detach ? { detach: 'true' as const } : {}) },
        },
        body,
        signal: opts.signal,
      }),
    ) as Schemas['ExecResult'] | DetachedRun;
  }

  // Runs: invokes and execs, attached or detached

  /** The sandbox's runs: in flight, and ended ones whose events are still kept. */
  async listRuns(id: string, opts: CallOptions = {}): Promise<Schemas['RunList']> {
    return ok(
      await this.raw.GET('/sandboxes/{id}/runs', {
        params: { path: { id }, query: this.#query(opts) },
        signal: opts.signal,
      }),
    );
  }

  /** `listRuns`' items. */
  async runs(id: string, opts: CallOptions = {}): Promise<Schemas['RunSummary'][]> {
    return (await this.listRuns(id, opts)).items;
  }

  /**
   * One connection to a run's events: replayed from the start (or after `lastEventId`), then
   * followed to `exit`. Leaving the loop leaves the run alone. `attach` reconnects for you.
   */
  async getRunEvents(
    id: string,
    invokeId: string,
    opts: CallOptions & { lastEventId?: string } = {},
  ): Promise<EventStream<RunEvents>> {
    const { lastEventId, ...call } = opts;
    const stream = ok(
      await this.raw.GET('/sandboxes/{id}/runs/{invokeId}/events', {
        params: { path: { id, invokeId }, query: this.#query(call) },
        headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        parseAs: 'stream',
        signal: opts.signal,
      }),
    );
    return new EventStream<RunEvents>(streamOf(stream), sseEventNames.getRunEvents, {
      ids: true,
      signal: opts.signal,
    });
  }

  /**
   * A run's events to its `exit`, each with its `id`: a connection that drops is reopened
   * after the last id seen, so nothing still buffered is missed (a `drop` event says what the
   * buffer lost). Aborting `opts.signal` stops reading; the run goes on.
   */
  attach(
    id: string,
    invokeId: string,
    opts: AttachOptions = {},
  ): AsyncGenerator<StreamEvent<RunEvents>, void, undefined> {
    const call = {
      ...(opts.namespace ? { namespace: opts.namespace } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    };
    return resumingEvents(
      (lastEventId) => this.getRunEvents(id, invokeId, { ...call, ...(lastEventId ? { lastEventId } : {}) }),
      opts,
    );
  }

  /** Cancels an invoke or exec in flight, attached or detached (SIGTERM, then SIGKILL). */
  async cancelRun(id: string, invokeId: string, opts: CallOptions = {}): Promise<Success<'cancelRun'>> {
    return ok(
      await this.raw.POST('/sandboxes/{id}/runs/{invokeId}/cancel', {
        params: { path: { id, invokeId }, query: this.#query(opts) },
        signal: opts.signal,
      }),
    );
  }

  /**
   * `execSandbox` as it runs: `start` (its id, for `cancelExec`), `log`…, `exit`, maybe
   * `error`. Leaving the loop early or aborting `opts.signal` ends the command.
   */
  async execSandboxStream(
    id: string,
    body: JsonBody<'execSandbox'>,
    opts: CallOptions = {},
  ): Promise<EventStream<ExecEvents>> {
    const stream = ok(
      await this.raw.POST('/sandboxes/{id}/exec', {
        params: { path: { id }, query: this.#query(opts) },
        body,
        headers: { accept: 'text/event-stream' },
        parseAs: 'stream',
        signal: opts.signal,
      }),
    );
    return new EventStream<ExecEvents>(streamOf(stream), sseEventNames.execSandbox, { signal: opts.signal });
  }

  async cancelExec(id: string, invokeId: string, opts: CallOptions = {}): Promise<Success<'cancelExec'>> {
    return ok(
      await this.raw.POST('/sandboxes/{id}/exec/cancel', {
        params: { path: { id }, query: this.#query(opts) },
        body: { invokeId },
        signal: opts.signal,
      }),
    );
  }

  /** The template process's recent stdout and stderr (the last 1 MiB), oldest first. */
  async getSandboxLogs(id: string, opts: CallOptions = {}): Promise<Schemas['SandboxLogs']> {
    return ok(
      await this.raw.GET('/sandboxes/{id}/logs', {
        params: { path: { id }, query: this.#query(opts) },
        signal: opts.signal,
      }),
    ) as Schemas['SandboxLogs'];
  }

  /**
   * The template process's output as `log` events: what is kept, then new output as it is
   * written. It never ends by itself: leave the loop or abort `opts.signal` to stop.
   */
  async followSandboxLogs(id: string, opts: CallOptions = {}): Promise<EventStream<LogEvents>> {
    const stream = ok(
      await this.raw.GET('/sandboxes/{id}/logs', {
        params: { path: { id }, query: { ...this.#query(opts), follow: 'true' } },
        headers: { accept: 'text/event-stream' },
        parseAs: 'stream',
        signal: opts.signal,
      }),
    );
    return new EventStream<LogEvents>(streamOf(stream), sseEventNames.getSandboxLogs, {
      signal: opts.signal,
    });
  }

  /**
   * What the sandbox uses now: CPU, memory, workspace bytes, processes, runs and terminals.
   * `history`: also the CPU and memory samples of the last that many seconds (at most 600).
   * Reading usage is no activity: it never keeps a sandbox from its idleTimeout.
   */
  async getSandboxUsage(id: string, opts: CallOptions & { history?: number } = {}): Promise<SandboxUsage> {
    const { history, ...rest } = opts;
    return ok(
      await this.raw.GET('/sandboxes/{id}/usage', {
        params: {
          path: { id },
          query: { ...this.#query(rest), ...(history === undefined ? {} : { history }) },
        },
        signal: opts.signal,
      }),
    ) as SandboxUsage;
  }

  /**
   * The sandbox's usage as `usage` events, every 2 s (the API's setting). It never ends by
   * itself: leave the loop or abort `opts.signal` to stop.
   */
  async watchSandboxUsage(id: string, opts: CallOptions = {}): Promise<EventStream<UsageEvents>> {
    const stream = ok(
      await this.raw.GET('/sandboxes/{id}/usage', {
        params: { path: { id }, query: this.#query(opts) },
        headers: { accept: 'text/event-stream' },
        parseAs: 'stream',
        signal: opts.signal,
      }),
    );
    return new EventStream<UsageEvents>(streamOf(stream), sseEventNames.getSandboxUsage, {
      signal: opts.signal,
    });
  }

  // Audit and governance (admins)

  async listAuditEvents(
    opts: CallOptions & Query<'listAuditEvents'> = {},
  ): Promise<Success<'listAuditEvents'>> {
    return ok(
      await this.raw.GET('/audit/events', { params: { query: this.#query(opts) }, signal: opts.signal }),
    );
  }

  async getPolicies(opts: Pick<CallOptions, 'signal'> = {}): Promise<Success<'getPolicies'>> {
    return ok(await this.raw.GET('/governance/policies', { signal: opts.signal }));
  }

  async setClusterPolicy(
    policy: JsonBody<'setClusterPolicy'>,
    opts: Pick<CallOptions, 'signal'> = {},
  ): Promise<Success<'setClusterPolicy'>> {
    return ok(await this.raw.PUT('/governance/policies', { body: policy, signal: opts.signal }));
  }

  async setNamespacePolicy(
    namespace: string,
    policy: JsonBody<'setNamespacePolicy'>,
    opts: Pick<CallOptions, 'signal'> = {},
  ): Promise<Success<'setNamespacePolicy'>> {
    return ok(
      await this.raw.PUT('/governance/policies/{namespace}', {
        params: { path: { namespace } },
        body: policy,
        signal: opts.signal,
      }),
    );
  }

  async deleteNamespacePolicy(namespace: string, opts: Pick<CallOptions, 'signal'> = {}): Promise<void> {
    ok(
      await this.raw.DELETE('/governance/policies/{namespace}', {
        params: { path: { namespace } },
        signal: opts.signal,
      }),
    );
  }

  async getEffectivePolicy(
    opts: CallOptions & Query<'getEffectivePolicy'> = {},
  ): Promise<Success<'getEffectivePolicy'>> {
    return ok(
      await this.raw.GET('/governance/effective', {
        params: { query: this.#query(opts) },
        signal: opts.signal,
      }),
    );
  }

  // API keys (admins)

  async listApiKeys(opts: Pick<CallOptions, 'signal'> = {}): Promise<Success<'listApiKeys'>> {
    return ok(await this.raw.GET('/apikeys', { signal: opts.signal }));
  }

  async createApiKey(
    body: JsonBody<'createApiKey'>,
    opts: Pick<CallOptions, 'signal'> = {},
  ): Promise<Success<'createApiKey'>> {
    return ok(await this.raw.POST('/apikeys', { body, signal: opts.signal }));
  }

  async revokeApiKey(keyId: string, opts: Pick<CallOptions, 'signal'> = {}): Promise<void> {
    ok(await this.raw.DELETE('/apikeys/{keyId}', { params: { path: { keyId } }, signal: opts.signal }));
  }

  // Secrets: the caller's own, for `spec.credentials`; values are write-only.

  async createSecret(
    body: JsonBody<'createSecret'>,
    opts: CallOptions = {},
  ): Promise<Success<'createSecret'>> {
    return ok(
      await this.raw.POST('/secrets', { params: { query: this.#query(opts) }, body, signal: opts.signal }),
    );
  }

  async listSecrets(opts: CallOptions = {}): Promise<Success<'listSecrets'>> {
    return ok(await this.raw.GET('/secrets', { params: { query: this.#query(opts) }, signal: opts.signal }));
  }

  async deleteSecret(secretName: string, opts: CallOptions = {}): Promise<void> {
    ok(
      await this.raw.DELETE('/secrets/{secretName}', {
        params: { path: { secretName }, query: this.#query(opts) },
        signal: opts.signal,
      }),
    );
  }

  // Terminal

  /**
   * A shell in the sandbox over a WebSocket: a one-use ticket first (this call's headers
   * authenticate it), then the socket with `?ticket=`, which works the same in browsers
   * (no headers on a WebSocket) and in Node 22+.
   */
  async openTerminal(id: string, opts: TerminalOptions = {}): Promise<TerminalSession> {
    const { ticket } = await this.createTerminalTicket(id, opts);
    const url = new URL(`${this.#base}/sandboxes/${encodeURIComponent(id)}/terminal`);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    const query = this.#query(opts) as { namespace?: string };
    if (query.namespace) url.searchParams.set('namespace', query.namespace);
    if (opts.cols !== undefined) url.searchParams.set('cols', String(opts.cols));
    if (opts.rows !== undefined) url.searchParams.set('rows', String(opts.rows));
    if (opts.command !== undefined) url.searchParams.set('command', opts.command);
    url.searchParams.set('ticket', ticket);
    return connectTerminal(url.toString());
  }

  async createTerminalTicket(id: string, opts: CallOptions = {}): Promise<Success<'createTerminalTicket'>> {
    const { cols: _c, rows: _r, command: _m, ...call } = opts as TerminalOptions;
    return ok(
      await this.raw.POST('/sandboxes/{id}/terminal/ticket', {
        params: { path: { id }, query: this.#query(call) },
        signal: opts.signal,
      }),
    );
  }

  // Discovery

  async listTemplates(opts: CallOptions = {}): Promise<Success<'listTemplates'>> {
    return ok(
      await this.raw.GET('/templates', { params: { query: this.#query(opts) }, signal: opts.signal }),
    );
  }

  async getTemplate(
    name: string,
    opts: CallOptions & Query<'getTemplate'> = {},
  ): Promise<Success<'getTemplate'>> {
    return ok(
      await this.raw.GET('/templates/{name}', {
        params: { path: { name }, query: this.#query(opts) },
        signal: opts.signal,
      }),
    );
  }

  async getCurrentUser(opts: Pick<CallOptions, 'signal'> = {}): Promise<Success<'getCurrentUser'>> {
    return ok(await this.raw.GET('/user/me', { signal: opts.signal }));
  }

  async listPorts(id: string, opts: CallOptions = {}): Promise<Success<'listPorts'>> {
    return ok(
      await this.raw.GET('/sandboxes/{id}/ports', {
        params: { path: { id }, query: this.#query(opts) },
        signal: opts.signal,
      }),
    );
  }

  // Beyond the document's operations

  /**
   * Where this client sends its calls: the API's base URL (ending in `/api/v1`), the
   * credential headers and the default namespace. For what cannot go through fetch (a raw
   * HTTP Upgrade tunnel, a WebSocket library that takes headers).
   */
  get connection(): { baseUrl: string; headers: Readonly<Record<string, string>>; namespace?: string } {
    return {
      baseUrl: this.#base,
      headers: { ...this.#headers },
      ...(this.#namespace !== undefined ? { namespace: this.#namespace } : {}),
    };
  }

  /**
   * An authenticated request to `path` under `/api/v1` (the namespace added to its query
   * unless it names one); a 2xx answer comes back unread, anything else is thrown as an
   * ApiError. For a route newer than this client's types, or a body it should not buffer.
   */
  async request(
    method: string,
    path: string,
    init: Omit<RequestInit, 'method'> & { namespace?: string } = {},
  ): Promise<Response> {
    const { namespace, ...rest } = init;
    const url = new URL(this.#base + (path.startsWith('/') ? path : `/${path}`));
    const ns = namespace ?? this.#namespace;
    if (ns !== undefined && !url.searchParams.has('namespace')) url.searchParams.set('namespace', ns);
    const headers = new Headers(rest.headers);
    for (const [k, v] of Object.entries(this.#headers)) headers.set(k, v);
    const streamed = rest.body instanceof ReadableStream;
    const res = await this.#fetch(
      new Request(url, { ...rest, method, headers, ...(streamed ? { duplex: 'half' } : {}) }),
    );
    if (res.ok) return res;
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not the API's JSON (a proxy's page): the text is the message.
    }
    throw errorFromResponse(res.status, res.headers, body);
  }

  async getOpenApiDocument(opts: Pick<CallOptions, 'signal'> = {}): Promise<Success<'getOpenApiDocument'>> {
    return ok(await this.raw.GET('/openapi.json', { signal: opts.signal }));
  }

  // Files and archives of a sandbox's workspace. Paths are absolute (`/workspace/app/x.py`);
  // bodies stream both ways.

  /** The URL of a file (or folder) path of a sandbox, with query parameters. */
  #fileUrl(id: string, route: 'files' | 'archive', path: string | undefined, query: Record<string, string>) {
    const ns = query.namespace ?? this.#namespace;
    const q = new URLSearchParams(Object.entries(query).filter(([k]) => k !== 'namespace'));
    if (ns !== undefined) q.set('namespace', ns);
    const rest =
      path === undefined ? '' : `/${path.replace(/^\/+/, '').split('/').map(encodeURIComponent).join('/')}`;
    const search = q.toString() === '' ? '' : `?${q.toString()}`;
    return `${this.#base}/sandboxes/${encodeURIComponent(id)}/${route}${rest}${search}`;
  }

  async #send(url: string, init: RequestInit & { duplex?: 'half' }): Promise<Response> {
    const headers = new Headers(init.headers);
    for (const [k, v] of Object.entries(this.#headers)) headers.set(k, v);
    const res = await this.#fetch(new Request(url, { ...init, headers }));
    if (!res.ok && res.status !== 304) {
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: the text is the error
      }
      throw errorFromResponse(res.status, res.headers, body);
    }
    return res;
  }

  /** Lists a folder: its entries (name, path, size, type, mode, modifiedAt). */
  async listFiles(id: string, path: string, opts: CallOptions = {}): Promise<Success<'listFiles'>> {
    const res = await this.#send(this.#fileUrl(id, 'files', undefined, this.#strings({ ...opts, path })), {
      signal: opts.signal,
    });
    return (await res.json()) as Success<'listFiles'>;
  }

  /**
   * A file's bytes as the answer, its body a stream (`range` such as `bytes=0-99` answers
   * 206 with that part). A folder answers with its listing as JSON.
   */
  async readFile(id: string, path: string, opts: CallOptions & { range?: string } = {}): Promise<Response> {
    const { range, ...rest } = opts;
    return this.#send(this.#fileUrl(id, 'files', path, this.#strings(rest)), {
      signal: opts.signal,
      headers: range ? { range } : {},
    });
  }

  /** Writes a file from `body` (streamed when a stream); 201 new, 200 replaced. `mode` as octal, such as `0755`. */
  async writeFile(
    id: string,
    path: string,
    body: InvokeInput,
    opts: CallOptions & { mode?: string } = {},
  ): Promise<Success<'writeFile'>> {
    const res = await this.#send(this.#fileUrl(id, 'files', path, this.#strings(opts)), {
      method: 'PUT',
      body: body as RequestInit['body'],
      headers: { 'content-type': 'application/octet-stream' },
      signal: opts.signal,
      ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
    });
    return (await res.json()) as Success<'writeFile'>;
  }

  /** Deletes a file, link or empty folder; `recursive` for a folder with entries. */
  async deleteFile(
    id: string,
    path: string,
    opts: CallOptions & { recursive?: boolean } = {},
  ): Promise<void> {
    const { recursive, ...rest } = opts;
    await this.#send(
      this.#fileUrl(
        id,
        'files',
        path,
        this.#strings({ ...rest, ...(recursive ? { recursive: 'true' } : {}) }),
      ),
      { method: 'DELETE', signal: opts.signal },
    );
  }

  /** `{op: 'mkdir'}` makes a folder (and its parents); `{op: 'move', to}` moves an entry. */
  async fileOperation(
    id: string,
    path: string,
    body: JsonBody<'fileOperation'>,
    opts: CallOptions = {},
  ): Promise<Success<'fileOperation'>> {
    const res = await this.#send(this.#fileUrl(id, 'files', path, this.#strings(opts)), {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
      signal: opts.signal,
    });
    return (await res.json()) as Success<'fileOperation'>;
  }

  /** A folder as a zip (default), tar or tar.gz; the answer's body streams it. */
  async downloadArchive(
    id: string,
    path: string,
    opts: CallOptions & { format?: 'zip' | 'tar' | 'tar.gz' } = {},
  ): Promise<Response> {
    return this.#send(this.#fileUrl(id, 'archive', undefined, this.#strings({ ...opts, path })), {
      signal: opts.signal,
    });
  }

  /** Extracts a tar or tar.gz (`body`, streamed when a stream) into the folder `path`. */
  async uploadArchive(
    id: string,
    path: string,
    body: InvokeInput,
    opts: CallOptions = {},
  ): Promise<Success<'uploadArchive'>> {
    const res = await this.#send(this.#fileUrl(id, 'archive', undefined, this.#strings({ ...opts, path })), {
      method: 'PUT',
      body: body as RequestInit['body'],
      headers: { 'content-type': 'application/octet-stream' },
      signal: opts.signal,
      ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
    });
    return (await res.json()) as Success<'uploadArchive'>;
  }

  /** The string-valued options of a call as query parameters (the signal dropped). */
  #strings(opts: object): Record<string, string> {
    return Object.fromEntries(
      Object.entries(opts).filter(
        (e): e is [string, string] => e[0] !== 'signal' && typeof e[1] === 'string',
      ),
    );
  }
}

function streamOf(body: ReadableStream<Uint8Array> | null | undefined): ReadableStream<Uint8Array> {
  if (!body) throw new Error('the API answered a streaming call without a body');
  return body;
}

// Every operation of the document has its method: a route added to api/openapi.json fails
// the typecheck here, once the types are regenerated, until the client gains its method.
// `mcpMessage` is the MCP endpoint: an MCP client speaks it (docs/mcp.md), not this one.
type Missing = Exclude<keyof operations, keyof SvcClient | 'mcpMessage'>;
export const everyOperationCovered: [Missing] extends [never] ? true : Missing = true;
