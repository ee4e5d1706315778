import { request, type IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import type { Duplex, Readable } from 'node:stream';
import { SseParser, type RunSpecInput, type SseMessage } from '../../core/index.ts';
import { readRaw, type ReadAnswer } from './read.ts';
import { terminalPath, type TerminalOpening, type TerminalOptions } from './terminal.ts';
import type { components } from './openapi.ts';

/** sandboxd's request and answer bodies, generated from sandboxd/openapi.json. */
type Schemas = components['schemas'];

export interface SandboxdAddress {
  /** `host:port`, or `unix:/path/to/socket`. */
  address: string;
  token: string;
}

/** sandboxd's `GET /activity`. */
export type SandboxdActivity = Schemas['Activity'];

/** One run in flight, as sandboxd's `GET /runs` lists it. */
export type SandboxdRunItem = Schemas['RunItem'];

export interface SandboxdClientOptions extends SandboxdAddress {
  /**
   * Whether a run whose stdin is known up front asks for the upgraded form of `POST /runs`
   * (sandboxd/internal/runs/upgrade.go). Default true; false keeps to the 200 answer (its tests).
   */
  upgradeRuns?: boolean;
}

/** An accepted run's SSE bytes, or sandboxd's refusal. */
export interface OpenedRun {
  status: number;
  headers: IncomingMessage['headers'];
  /** The JSON body of a refusal (status ≠ 200). */
  body?: unknown;
  /** The SSE bytes of an accepted run: a response body, or the upgraded connection. */
  stream?: Readable;
}

/** One run as sandboxd's `GET /runs?all=true` lists it. */
export type SandboxdRunRecord = Schemas['RunRecord'];

export interface RunResponse {
  status: number;
  headers: IncomingMessage['headers'];
  /** The JSON body of a refusal (status ≠ 200). */
  body?: unknown;
  /** The SSE events of an accepted run, in order, ending with `exit`. */
  events: AsyncIterable<SseMessage>;
}

/**
 * The HTTP client of sandboxd, for the API (invokes, file writes) and the operator
 * (install runs). One hop straight to the sandbox: no `pods/exec`, no apiserver in the path.
 */
export class SandboxdClient {
  readonly #target: { socketPath: string } | { host: string; port: number };
  readonly #auth: string;
  readonly #upgradeRuns: boolean;

  constructor(opts: SandboxdClientOptions) {
    this.#auth = `Bearer ${opts.token}`;
    this.#upgradeRuns = opts.upgradeRuns ?? true;
    if (opts.address.startsWith('unix:')) this.#target = { socketPath: opts.address.slice(5) };
    else {
      const i = opts.address.lastIndexOf(':');
      this.#target = { host: opts.address.slice(0, i), port: Number(opts.address.slice(i + 1)) };
    }
  }

  /** Starts a run; stdin streams from `stdin`. Aborting `signal` drops the connection (cancel). */
  async run(spec: RunSpecInput, stdin?: Readable | Buffer, signal?: AbortSignal): Promise<RunResponse> {
    if (stdin === undefined || Buffer.isBuffer(stdin)) {
      const opened = await this.runRaw(spec, stdin ?? Buffer.alloc(0), signal);
      if (opened.status !== 200 || !opened.stream)
        return { status: opened.status, headers: opened.headers, body: opened.body, events: empty() };
      return { status: 200, headers: opened.headers, events: sseEvents(opened.stream) };
    }
    const res = await this.#send(
      'POST',
      '/runs',
      (req) => {
        req.write(`${JSON.stringify(spec)}\n`);
        stdin.pipe(req);
      },
      signal,
    );
    return runResponse(res);
  }

  /**
   * Reads an install run another client started: its events from `start` (replayed) to
   * `exit` (live, if it is still running). 404 for an unknown or non-install run. Aborting
   * `signal` stops reading; unlike `run()`'s, it does not cancel the run.
   */
  async attach(runId: string, signal?: AbortSignal): Promise<RunResponse> {
    const res = await this.#send(
      'GET',
      `/runs/${encodeURIComponent(runId)}/events`,
      (req) => req.end(),
      signal,
    );
    return runResponse(res);
  }

  /**
   * Starts a run and hands back its SSE bytes unparsed, for a caller that passes them through
   * (the API's invoke and exec). It asks for the upgraded form of `POST /runs`
   * (sandboxd/internal/runs/upgrade.go): the stream is then read straight off the socket, not through Node's
   * HTTP parser, which copies every chunk of a response body once more.
   */
  runRaw(spec: RunSpecInput, stdin: Buffer, signal?: AbortSignal): Promise<OpenedRun> {
    const line = Buffer.from(`${JSON.stringify(spec)}\n`);
    const upgrade = this.#upgradeRuns ? { connection: 'Upgrade', upgrade: 'svc-run' } : {};
    return new Promise((resolve, reject) => {
      const req = request({
        ...this.#target,
        method: 'POST',
        path: '/runs',
        headers: {
          authorization: this.#auth,
          ...upgrade,
          'content-length': String(line.length + stdin.length),
        },
        signal,
      });
      req.on('upgrade', (res, socket, head) => {
        // Whoever reads the stream sees its errors; none may go unheard and end the process.
        socket.on('error', () => undefined);
        if (head.length > 0) socket.unshift(head);
        if (signal) {
          const abort = () => socket.destroy();
          if (signal.aborted) abort();
          signal.addEventListener('abort', abort, { once: true });
          socket.once('close', () => signal.removeEventListener('abort', abort));
        }
        resolve({ status: 200, headers: res.headers, stream: socket });
      });
      req.on('response', (res) => {
        if (res.statusCode === 200) return resolve({ status: 200, headers: res.headers, stream: res });
        readJson(res).then(
          (body) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }),
          reject,
        );
      });
      req.on('error', reject);
      req.write(line);
      req.end(stdin);
    });
  }

  /** The runs in flight. */
  async runs(): Promise<SandboxdRunItem[]> {
    return (await this.load()).items;
  }

  /** The runs in flight, the invokes among them, and the invoke cap. */
  async load(): Promise<{ items: SandboxdRunItem[]; inflight: number; maxConcurrentInvokes: number }> {
    const res = await this.#send('GET', '/runs', (req) => req.end());
    const body = (await readJson(res)) as Partial<Schemas['RunList']>;
    if (res.statusCode !== 200 || !Array.isArray(body.items))
      throw new Error(`sandboxd did not list its runs: ${res.statusCode} ${JSON.stringify(body)}`);
    return {
      items: body.items,
      inflight: body.items.filter((r) => r.kind === 'invoke').length,
      maxConcurrentInvokes: body.maxConcurrentInvokes ?? 1,
    };
  }

  /** Every run sandboxd knows: in flight, and ended ones whose events it still keeps. */
  async records(): Promise<SandboxdRunRecord[]> {
    const res = await this.#send('GET', '/runs?all=true', (req) => req.end());
    const body = (await readJson(res)) as Partial<Schemas['RunRecords']>;
    if (res.statusCode !== 200 || !Array.isArray(body.items))
      throw new Error(`sandboxd did not list its runs: ${res.statusCode} ${JSON.stringify(body)}`);
    return body.items;
  }

  /**
   * A run's events, as sandboxd sends them (each with its `id:`): replayed from the start or
   * after `lastEventId`, then followed to `exit`. The response as it is (404 for a run it does
   * not know), for a caller that passes it through; aborting `signal` stops reading and
   * leaves the run alone.
   */
  events(runId: string, lastEventId?: string, signal?: AbortSignal): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = request({
        ...this.#target,
        method: 'GET',
        path: `/runs/${encodeURIComponent(runId)}/events`,
        headers: { authorization: this.#auth, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        signal,
      });
      req.on('response', resolve);
      req.on('error', reject);
      req.end();
    });
  }

  async cancel(runId: string): Promise<boolean> {
    const res = await this.#send('POST', `/runs/${encodeURIComponent(runId)}/cancel`, (req) => req.end());
    await readJson(res);
    return res.statusCode === 202;
  }

  /** Writes files atomically inside the workspace. */
  async writeFiles(
    files: { path: string; content: Buffer; mode?: number }[],
  ): Promise<{ status: number; body: unknown }> {
    const manifest: Schemas['FileManifest'] = {
      files: files.map((f) => ({
        path: f.path,
        size: f.content.length,
        ...(f.mode === undefined ? {} : { mode: f.mode }),
      })),
    };
    const res = await this.#send('PUT', '/files', (req) => {
      req.write(`${JSON.stringify(manifest)}\n`);
      for (const f of files) req.write(f.content);
      req.end();
    });
    return { status: res.statusCode ?? 0, body: await readJson(res) };
  }

  /**
   * `writeFiles` with the files' bytes streamed back to back from `body`, in the order of
   * `files` (their sizes known beforehand): nothing of them is held in memory.
   */
  async writeFileStream(
    files: { path: string; size: number; mode?: number }[],
    body: Readable,
  ): Promise<{ status: number; body: unknown }> {
    const res = await this.#send('PUT', '/files', (req) => {
      const manifest: Schemas['FileManifest'] = { files };
      req.write(`${JSON.stringify(manifest)}\n`);
      body.pipe(req);
    });
    return { status: res.statusCode ?? 0, body: await readJson(res) };
  }

  async setMaxConcurrentInvokes(n: number): Promise<void> {
    const limits: Schemas['Limits'] = { maxConcurrentInvokes: n };
    const res = await this.#send('PUT', '/limits', (req) => req.end(`${JSON.stringify(limits)}\n`));
    const body = await readJson(res);
    if (res.statusCode !== 200) throw new Error(`sandboxd refused the limit: ${JSON.stringify(body)}`);
  }

  /** The template process's recent output (sandboxd keeps the last 1 MiB). */
  async logs(): Promise<{ status: number; body: unknown }> {
    const res = await this.#send('GET', '/logs', (req) => req.end());
    return { status: res.statusCode ?? 0, body: await readJson(res) };
  }

  /**
   * The template process's output as SSE `log` events: what is kept, then new output as it
   * comes, until `signal` aborts. The response as it is, for a caller that passes it through.
   */
  async followLogs(signal?: AbortSignal): Promise<IncomingMessage> {
    return this.#send('GET', '/logs?follow=true', (req) => req.end(), signal);
  }

  /**
   * Gives sandboxd a new token (a claimed warm-pool member gets its sandbox's), authenticated
   * by the current one; from then on only the new one is accepted. 401: the current token is
   * no longer this client's (already replaced).
   */
  async setToken(token: string): Promise<number> {
    const request: Schemas['TokenRequest'] = { token };
    const res = await this.#send('PUT', '/token', (req) => req.end(`${JSON.stringify(request)}\n`));
    const body = await readJson(res);
    if (res.statusCode !== 200 && res.statusCode !== 401)
      throw new Error(`sandboxd refused the token: ${JSON.stringify(body)}`);
    return res.statusCode;
  }

  /** `/healthz`'s body: and, when sandboxd supervises the template's process, how it fares. */
  async status(): Promise<Schemas['Health']> {
    const res = await this.#send('GET', '/healthz', (req) => req.end());
    const body = (await readJson(res)) as Schemas['Health'];
    if (res.statusCode !== 200) throw new Error(`sandboxd answered /healthz with ${res.statusCode}`);
    return body;
  }

  /**
   * Whether the sandbox is in use now, and since when it is not (sandboxd/internal/activity/activity.go):
   * requests in flight, runs alive, terminals open, CPU above `cpuThreshold` cores.
   */
  async activity(cpuThreshold?: number): Promise<SandboxdActivity> {
    const query = cpuThreshold ? `?cpuThreshold=${cpuThreshold}` : '';
    const res = await this.#send('GET', `/activity${query}`, (req) => req.end());
    const body = await readJson(res);
    if (res.statusCode !== 200) throw new Error(`sandboxd answered /activity with ${res.statusCode}`);
    return body as SandboxdActivity;
  }

  /** The Pod's usage now (sandboxd/internal/activity/activity.go), with the last `historySeconds` of samples. */
  async usage(historySeconds?: number): Promise<{ status: number; body: unknown }> {
    const query = historySeconds === undefined ? '' : `?history=${historySeconds}`;
    const res = await this.#send('GET', `/usage${query}`, (req) => req.end());
    return { status: res.statusCode ?? 0, body: await readJson(res) };
  }

  /** Whether /healthz answers 200; aborting `signal` gives the try up (it rejects). */
  async health(signal?: AbortSignal): Promise<boolean> {
    const res = await this.#send('GET', '/healthz', (req) => req.end(), signal);
    await readJson(res);
    return res.statusCode === 200;
  }

  /**
   * Opens sandboxd's port tunnel: a stream joined to 127.0.0.1:`port` inside the sandbox.
   * Rejects with sandboxd's answer when nothing listens there.
   */
  tunnel(port: number): Promise<Duplex> {
    return new Promise((resolve, reject) => {
      const req = request({
        ...this.#target,
        method: 'GET',
        path: `/tunnel/${port}`,
        headers: { authorization: this.#auth, connection: 'Upgrade', upgrade: 'tcp' },
      });
      req.on('upgrade', (_res, socket, head) => {
        if (head.length > 0) socket.unshift(head);
        resolve(socket);
      });
      req.on('response', (res) => {
        res.resume();
        reject(new Error(`sandboxd refused the tunnel to port ${port}: ${res.statusCode}`));
      });
      req.on('error', reject);
      req.end();
    });
  }

  /**
   * One request whose body streams from `body` (piped, so back-pressure reaches the caller)
   * and whose response comes back unread: the file and archive transfers, which pass
   * through the API without being held in memory.
   */
  stream(
    method: string,
    path: string,
    opts: { headers?: Record<string, string>; body?: Readable; signal?: AbortSignal } = {},
  ): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = request({
        ...this.#target,
        method,
        path,
        headers: { ...opts.headers, authorization: this.#auth },
        signal: opts.signal,
      });
      req.on('response', resolve);
      req.on('error', reject);
      if (!opts.body) req.end();
      else {
        opts.body.on('error', (err) => req.destroy(err));
        opts.body.pipe(req);
      }
    });
  }

  /**
   * A GET whose answer's body is relayed from a few reused buffers, not through `node:http`
   * (see `readRaw`): the file and archive downloads.
   */
  read(
    path: string,
    opts: { headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<ReadAnswer> {
    return readRaw(this.#target, path, { ...opts.headers, authorization: this.#auth }, opts.signal);
  }

  /**
   * Opens a terminal session (sandboxd/internal/terminal/terminal.go): after sandboxd's 101 the socket carries
   * its frames; see `TerminalStream`. A refusal (429 at the session cap, 409 for a used
   * ticket) comes back with its body, nothing started.
   */
  openTerminal(o: TerminalOptions): Promise<TerminalOpening> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = {
        authorization: this.#auth,
        connection: 'Upgrade',
        upgrade: 'svc-terminal',
      };
      if (o.ticket) {
        headers['x-ticket-id'] = o.ticket.id;
        headers['x-ticket-ttl-ms'] = String(Math.max(0, Math.round(o.ticket.ttlMs)));
      }
      const req = request({ ...this.#target, method: 'GET', path: terminalPath(o), headers });
      req.on('upgrade', (_res, socket, head) => {
        (socket as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
        resolve({ ok: true, socket, head });
      });
      req.on('response', (res) => {
        void readJson(res).then(
          (body) => resolve({ ok: false, status: res.statusCode ?? 0, headers: res.headers, body }),
          reject,
        );
      });
      req.on('error', reject);
      req.end();
    });
  }

  #send(
    method: string,
    path: string,
    write: (req: ReturnType<typeof request>) => void,
    signal?: AbortSignal,
  ): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = request({ ...this.#target, method, path, headers: { authorization: this.#auth }, signal });
      req.on('response', resolve);
      req.on('error', reject);
      write(req);
    });
  }
}

async function runResponse(res: IncomingMessage): Promise<RunResponse> {
  if (res.statusCode !== 200)
    return { status: res.statusCode ?? 0, headers: res.headers, body: await readJson(res), events: empty() };
  return { status: 200, headers: res.headers, events: sseEvents(res) };
}

async function readJson(res: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of res as AsyncIterable<Buffer>) chunks.push(c);
  const text = Buffer.concat(chunks).toString();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function* sseEvents(res: Readable): AsyncIterable<SseMessage> {
  const parser = new SseParser();
  const decoder = new StringDecoder('utf8');
  for await (const chunk of res as AsyncIterable<Buffer>) {
    for (const message of parser.push(decoder.write(chunk))) yield message;
  }
  for (const message of parser.push(decoder.end())) yield message;
}

async function* empty(): AsyncIterable<SseMessage> {}
