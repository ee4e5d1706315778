// make bench-api: load on GET /api/v1/sandboxes/{id} (auth + owner check + informer cache)
// against GET /healthz on the same server as the baseline, both measured in this run.
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { ApiKeyStore } from '../api/index.ts';
import { API_NODE_OPTIONS } from '../cmd/node-options.ts';
import { GROUP, SandboxNamespaces, VERSION } from '../core/index.ts';
import { mergePatch } from '../kube/index.ts';
import { eventually, startEnvironment, startSvc } from '../stack/index.ts';
import { createBenchTemplate } from './support.ts';
import { wrk } from './wrk.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const env = await startEnvironment({ withSnapshotCrds: false });
try {
  // The service's own namespace never holds sandboxes (the spec's namespace rule).
  const serviceNamespace = 'svc-system';
  const namespace = 'bench';
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: serviceNamespace } } });
  await core.createNamespace({
    body: { metadata: { name: namespace, labels: { [SandboxNamespaces.label]: SandboxNamespaces.enabled } } },
  });
  await createBenchTemplate(env.kubeConfig, 'bench-api', {});
  const { key } = await new ApiKeyStore({ kc: env.kubeConfig, namespace: serviceNamespace }).create({
    user: 'bench',
  });
  const api = await startSvc(
    [
      'api',
      ...['--kubeconfig', env.kubeconfigPath, '--listen', '127.0.0.1:0'],
      ...['--service-namespace', serviceNamespace, '--default-namespace', namespace],
      ...['--auth.devAuth', 'true', '--devnode', 'true', '--log-level', 'warn'],
    ],
    { nodeOptions: API_NODE_OPTIONS },
  );
  try {
    const base = api.url;
    const made = await fetch(`${base}/api/v1/sandboxes`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', templateRef: { name: 'bench-api' } }),
    });
    if (made.status !== 201) throw new Error(`create answered ${made.status}: ${await made.text()}`);
    // No operator runs here: the bench writes the phase the operator would, so the reads
    // measured are the cached ones a Running sandbox gets (a sandbox in any other phase is
    // read afresh from the apiserver; see api/request/sandbox.ts).
    await env.kubeConfig.makeApiClient(CustomObjectsApi).patchNamespacedCustomObjectStatus(
      {
        group: GROUP,
        version: VERSION,
        namespace,
        plural: 'sandboxes',
        name: 'bench',
        body: { status: { phase: 'Running' } },
      },
      mergePatch,
    );
    await eventually(
      async () =>
        (
          (await (
            await fetch(`${base}/api/v1/sandboxes/bench`, { headers: { 'x-api-key': key } })
          ).json()) as { status?: { phase?: string } }
        ).status?.phase === 'Running',
      {
        timeoutMs: 10_000,
        describe: () => 'the API did not see the sandbox Running',
      },
    );
    const target = `${base}/api/v1/sandboxes/bench`;
    const headers = { 'x-api-key': key };
    await wrk(target, { seconds: 2, connections: 16, headers }); // warm-up: JIT, caches
    const baseline = await wrk(`${base}/healthz`, { seconds, connections: 16 });
    const get = await wrk(target, { seconds, connections: 16, headers });
    console.log(
      `GET /healthz            ${baseline.rps.toFixed(0)} req/s  p50 ${baseline.p50_ms} ms  p99 ${baseline.p99_ms} ms`,
    );
    console.log(
      `GET /sandboxes/{id}     ${get.rps.toFixed(0)} req/s  p50 ${get.p50_ms} ms  p99 ${get.p99_ms} ms  errors ${get.errors}`,
    );
    console.log(`ratio to baseline       ${(get.rps / baseline.rps).toFixed(2)}`);
    console.log(
      JSON.stringify({
        bench: 'api',
        rps: Math.round(get.rps),
        p99_ms: get.p99_ms,
        p50_ms: get.p50_ms,
        baseline_rps: Math.round(baseline.rps),
        errors: get.errors,
      }),
    );
  } finally {
    await api.close();
  }
} finally {
  await env.dispose();
}
