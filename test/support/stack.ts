import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll } from 'vitest';
import { GROUP, VERSION, type SandboxTemplateSpec } from '../../core/index.ts';
import type { SandboxdClient } from '../../kube/index.ts';
import { startOperator, type OperatorSettings, type RunningOperator } from '../../operator/index.ts';
import type { Tracer } from '../../telemetry/index.ts';
import type { TestNamespace } from './kube.ts';
import { kubeRequest, type RawResponse } from './raw.ts';

/** Operator settings for tests: nothing here reaches a real registry or ingress. */
export const testOperatorSettings: OperatorSettings = {
  sandboxdImage: 'svc:test',
  sandboxdPath: '/usr/local/bin/sandboxd',
  ingressClass: 'nginx',
  apiNamespace: 'svc-system',
  apiPodLabels: { 'app.kubernetes.io/name': 'svc' },
  snapshotWaitSeconds: 5,
  maxRestarts: 5,
  // Every test stack runs on devnode: its address annotations are where sandboxd listens.
  devnode: true,
};

/**
 * A ClusterSandboxTemplate of the calling test file's own (cluster-scoped, so its name is
 * random), created before its tests and deleted after them.
 */
export function useClusterTemplate(prefix: string, ns: TestNamespace, spec: Partial<SandboxTemplateSpec>) {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  const ref = { group: GROUP, version: VERSION, plural: 'clustersandboxtemplates' };
  beforeAll(async () => {
    await ns.custom.createClusterCustomObject({
      ...ref,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'ClusterSandboxTemplate',
        metadata: { name },
        spec: { image: 'debian:bookworm', storage: { size: '1Gi' }, ...spec },
      },
    });
  });
  afterAll(async () => {
    await ns.custom.deleteClusterCustomObject({ ...ref, name }).catch(() => undefined);
  });
  return name;
}

/** The operator in-process, watching the test's namespace (which also holds its Lease and policies). */
export function useOperator(
  ns: TestNamespace,
  opts: { identity: string; logger: Logger; settings?: Partial<OperatorSettings>; tracer?: Tracer },
): void {
  let operator: RunningOperator | undefined;
  beforeAll(async () => {
    operator = await startOperator({
      kc: ns.kc,
      logger: opts.logger,
      namespace: ns.name,
      leaseNamespace: ns.name,
      identity: opts.identity,
      ...(opts.tracer ? { tracer: opts.tracer } : {}),
      settings: { ...testOperatorSettings, ...opts.settings },
    });
  }, 30_000);
  afterAll(async () => {
    await operator?.stop();
  }, 30_000);
}

/** A Sandbox written straight to the apiserver, as `kubectl apply` would (no API). */
export async function createSandbox(ns: TestNamespace, name: string, spec: object): Promise<void> {
  await ns.custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    plural: 'sandboxes',
    namespace: ns.name,
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'Sandbox', metadata: { name }, spec },
  });
}

/**
 * A Sandbox created by `user` (impersonated), as that user's `kubectl apply` would: the
 * raw response, so a test can read a webhook's refusal. The template defaults to `default`.
 */
export function createSandboxAs(
  kc: KubeConfig,
  user: string,
  namespace: string,
  name: string,
  spec: object = {},
): Promise<RawResponse> {
  return kubeRequest(kc, {
    method: 'POST',
    path: `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/sandboxes`,
    headers: { 'impersonate-user': user },
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'Sandbox',
      metadata: { name },
      spec: { templateRef: { name: 'default' }, ...spec },
    },
  });
}

/** Runs `script` with `sh -c` through a sandbox's sandboxd; resolves with its stdout. */
export async function shIn(sandboxd: SandboxdClient, script: string): Promise<string> {
  const res = await sandboxd.run({
    runId: randomBytes(6).toString('hex'),
    kind: 'exec',
    argv: ['sh', '-c', script],
  });
  let out = '';
  for await (const e of res.events) {
    const d = JSON.parse(e.data) as { stream?: string; data?: string };
    if (e.event === 'log' && d.stream === 'stdout') out += d.data;
  }
  return out;
}
