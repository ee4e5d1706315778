// What the benchmarks share: the direct-spawn baseline, the statistics they print, and the
// ClusterSandboxTemplate and operator settings they run on.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import {
  GROUP,
  VERSION,
  WarmPool,
  podReady,
  type SandboxTemplateSpec,
  type SandboxWarmPool,
} from '../core/index.ts';
import type { OperatorSettings } from '../operator/index.ts';
import { ApiError, ConflictError, type SvcClient } from '../clients/typescript/index.ts';

/** The operator's settings in the benches (and the sandbox Pod the peer's template copies). */
export const benchOperatorSettings: OperatorSettings = {
  sandboxdImage: 'svc:bench',
  sandboxdPath: '/usr/local/bin/sandboxd',
  ingressClass: 'nginx',
  apiNamespace: 'svc-system',
  apiPodLabels: {},
  snapshotWaitSeconds: 300,
  maxRestarts: 5,
  devnode: true,
};

export interface Measured {
  ms: number;
  /** stdout bytes received (decoded from the `log` events, or read from the pipe). */
  bytes: number;
  logEvents: number;
  /** sandboxd's own spawn-to-close time from the `exit` event (whole ms); 0 for a direct run. */
  insideMs: number;
}

/** The baseline: the program spawned from this process with piped stdio, as sandboxd gives it, until it closes. */
export async function directRun(argv: string[]): Promise<Measured> {
  const t0 = performance.now();
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end();
  let bytes = 0;
  child.stdout.on('data', (chunk: Buffer) => (bytes += chunk.length));
  child.stderr.resume();
  const [code] = (await once(child, 'close')) as [number | null];
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`${argv.join(' ')} exited ${code}`);
  return { ms, bytes, logEvents: 0, insideMs: 0 };
}

/** The nearest-rank percentile. */
export function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/**
 * `close` once, whichever path asks first: the bench's own end (its `finally`), or Ctrl-C or
 * a kill (SIGINT, SIGTERM), after which the process exits with the signal's code. A bench
 * that ended without it left its control plane, its processes and its Pods' overlay mounts
 * behind (bench-scale's timeout used to `process.exit`).
 */
export function closingOnce(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  const once = () => {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    return (closing ??= close());
  };
  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`${signal}: stopping what the bench started`);
    void once()
      .catch((err: unknown) => console.error(err))
      .finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  return once;
}

/** The middle value (the upper one of an even count). */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

export const fmt = (x: number): string => x.toFixed(2);

export const round = (x: number, digits: number): number => Number(x.toFixed(digits));

/** The ClusterSandboxTemplate a bench runs its sandboxes on. */
export async function createBenchTemplate(
  kc: KubeConfig,
  name: string,
  spec: Partial<SandboxTemplateSpec>,
): Promise<void> {
  await kc.makeApiClient(CustomObjectsApi).createClusterCustomObject({
    group: GROUP,
    version: VERSION,
    plural: 'clustersandboxtemplates',
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'ClusterSandboxTemplate',
      metadata: { name },
      spec: { image: 'debian:bookworm', ...spec },
    },
  });
}

/**
 * Whether our pool is full and still: exactly `size` members, none going, every one Ready,
 * and its status saying so. The status alone may still show a member a claim just took
 * (the pool writes it after the refill started), and a create timed then would share the
 * machine with the refill.
 */
export async function poolFull(
  kc: KubeConfig,
  namespace: string,
  name: string,
  size: number,
): Promise<boolean> {
  const [pool, pods] = await Promise.all([
    kc.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: 'sandboxwarmpools',
      name,
    }) as Promise<SandboxWarmPool>,
    kc.makeApiClient(CoreV1Api).listNamespacedPod({
      namespace,
      labelSelector: `${WarmPool.poolLabel}=${name}`,
    }),
  ]);
  return (
    pool.status?.readyReplicas === size &&
    pods.items.length === size &&
    pods.items.every((p) => !p.metadata?.deletionTimestamp && podReady(p))
  );
}

/**
 * `createSandbox` as a client of the API should call it: a `503` (`cluster_unavailable`: the
 * apiserver or the webhook did not serve the API in time, as at a high load) is retried after
 * its `Retry-After`, up to `tries` times; a `409` on a retry means the earlier try was written
 * after all. Resolves with the number of retries (each a second or more in the timed figure).
 */
export async function createRetrying(
  client: SvcClient,
  body: Parameters<SvcClient['createSandbox']>[0],
  tries = 5,
): Promise<number> {
  for (let retry = 0; ; retry++) {
    try {
      await client.createSandbox(body);
      return retry;
    } catch (err) {
      if (retry > 0 && err instanceof ConflictError) return retry;
      if (!(err instanceof ApiError) || err.status !== 503 || retry + 1 >= tries) throw err;
      const after = Number(err.headers.get('retry-after') ?? 1);
      console.error(`${body.name}: ${err.message}; again in ${after} s`);
      await new Promise((r) => setTimeout(r, after * 1000));
    }
  }
}
