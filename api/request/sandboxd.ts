import type { Context } from 'hono';
import { RETRY_AFTER_SECONDS, type Sandbox } from '../../core/index.ts';
import { SandboxdUnavailable, type SandboxdClient } from '../../kube/index.ts';
import type { ApiDeps } from '../deps.ts';
import { HttpError } from '../errors/index.ts';
import type { Outcome } from '../metrics/index.ts';

/**
 * The waits before each further try of a connection nothing answered (about 2.5 s in all).
 * A warm-pool claim relabels its member's Pod, and until the cluster's NetworkPolicy
 * enforcer has reprogrammed it (a few hundred ms on kube-router) a connection to its sandboxd
 * can be refused although the sandbox is Running: a caller right after Running would get the
 * 503 about one claim in 25 (bench-tti on the real cluster). A refused connect started
 * nothing, so trying again is safe; a sandbox really gone answers the 503 that much later.
 */
const RETRY_WAITS_MS = [0, 25, 50, 100, 200, 400, 700, 1000];

/**
 * The sandbox's sandboxd and a first answer from it (`call`), or a 503 that says why it
 * cannot be reached. A connection refused is tried again (`RETRY_WAITS_MS`), its Pod looked
 * up afresh each time (it may have been recreated at another address).
 */
export async function sandboxdOf<T>(
  deps: Pick<ApiDeps, 'sandboxd'>,
  sandbox: Sandbox,
  call: (client: SandboxdClient) => Promise<T>,
): Promise<{ client: SandboxdClient; answer: T }> {
  const { namespace = '', name = '', uid } = sandbox.metadata;
  for (let attempt = 0; ; attempt++) {
    try {
      // Its uid: only a Pod this Sandbox controls is its, whatever else carries its name.
      const client = await deps.sandboxd.client(namespace, name, uid, { podName: sandbox.status?.podName });
      return { client, answer: await call(client) };
    } catch (err) {
      if (err instanceof SandboxdUnavailable) throw unreachable(err.message);
      if (!isConnectionError(err)) throw err;
      deps.sandboxd.forget(namespace, name);
      const wait = RETRY_WAITS_MS[attempt];
      if (wait === undefined) throw unreachable((err as Error).message);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** Errors of connecting, where nothing reached sandboxd, so trying again starts nothing twice. */
const isConnectionError = (err: unknown) =>
  typeof (err as NodeJS.ErrnoException)?.code === 'string' &&
  /^(ECONNREFUSED|ENOENT|EHOSTUNREACH)$/.test((err as NodeJS.ErrnoException).code!);

export const unreachable = (why: string) =>
  new HttpError(503, 'sandbox_unreachable', `the sandbox cannot be reached: ${why}`, {
    headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
  });

/** Reads a body up to `max` bytes; 413 above it. */
export async function readBounded(c: Context, max: number): Promise<Buffer> {
  const declared = Number(c.req.header('content-length') ?? NaN);
  if (declared > max) throw tooLarge(max);
  const chunks: Buffer[] = [];
  let size = 0;
  const body = c.req.raw.body;
  if (!body) return Buffer.alloc(0);
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > max) throw tooLarge(max);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

const tooLarge = (max: number) =>
  new HttpError(413, 'payload_too_large', `the request body is larger than ${max} bytes`);

/** The `template` label of the agent metrics: the resolved template, never a user or sandbox. */
export const templateOf = (sandbox: Sandbox) =>
  sandbox.status?.resolvedTemplate ?? `${sandbox.spec.templateRef.kind}/${sandbox.spec.templateRef.name}`;

/** The metrics outcome of a check that refused the call. */
export function refusalOutcome(err: unknown): Outcome | undefined {
  if (!(err instanceof HttpError)) return 'error';
  if (err.status === 429) return 'throttled';
  if (err.status === 403 && err.code === 'policy_violation') return 'denied';
  if (err.status === 503) return 'error';
  return undefined;
}
