// The operator against the real control plane with devnode: Sandboxes written as raw
// objects (no API) go through their whole lifecycle.
import { randomBytes } from 'node:crypto';
import { NetworkingV1Api, type V1Pod } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Annotations, GROUP, VERSION, type Sandbox } from '../../core/index.ts';
import { SandboxdClient } from '../../kube/index.ts';
import { startOperator, type OperatorSettings, type RunningOperator } from '../../operator/index.ts';
import { eventually } from '../../stack/index.ts';
import {
  readSnapshot,
  shIn,
  snapshotClaim,
  testOperatorSettings,
  useDevnode,
  useNamespace,
} from '../support/index.ts';

const ns = useNamespace('op');
useDevnode(ns);
const template = `op-${randomBytes(3).toString('hex')}`;
const settings: OperatorSettings = {
  ...testOperatorSettings,
  previewDomain: 'preview.example.test',
  snapshotWaitSeconds: 2,
};
const ops: RunningOperator[] = [];
// The operator's logs are kept, at debug, so a test can prove no secret value is in them.
const logLines: string[] = [];
const logger = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
const sandboxes = { group: GROUP, version: VERSION, plural: 'sandboxes' };

function operator(identity: string) {
  return startOperator({
    kc: ns.kc,
    logger,
    settings,
    namespace: ns.name,
    leaseNamespace: ns.name,
    identity,
    leaseDurationSeconds: 3,
  });
}

beforeAll(async () => {
  ops.push(await operator('first'));
}, 30_000);
afterAll(async () => {
  for (const o of ops) await o.stop();
  await ns.custom
    .deleteClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'clustersandboxtemplates',
      name: template,
    })
    .catch(() => undefined);
}, 30_000);

async function createTemplate(command?: string[]) {
  await ns.custom.createClusterCustomObject({
    group: GROUP,
    version: VERSION,
    plural: 'clustersandboxtemplates',
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'ClusterSandboxTemplate',
      metadata: { name: template },
      spec: { image: 'debian:bookworm', ...(command ? { command } : {}), storage: { size: '1Gi' } },
    },
  });
}

async function apply(name: string, spec: object) {
  await ns.custom.createNamespacedCustomObject({
    ...sandboxes,
    namespace: ns.name,
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'Sandbox', metadata: { name }, spec },
  });
}

async function get(name: string): Promise<Sandbox> {
  return (await ns.custom.getNamespacedCustomObject({ ...sandboxes, namespace: ns.name, name })) as Sandbox;
}

async function patch(name: string, spec: object) {
  await ns.custom.patchNamespacedCustomObject(
    { ...sandboxes, namespace: ns.name, name, body: { spec } },
    (await import('../../kube/index.ts')).mergePatch,
  );
}

async function phase(name: string, want: string, timeoutMs = 40_000): Promise<Sandbox> {
  let s: Sandbox | undefined;
  await eventually(
    async () => {
      s = await get(name);
      return s.status?.phase === want;
    },
    { timeoutMs, describe: () => `${name} ${want}: ${JSON.stringify(s?.status)}` },
  );
  return s!;
}

/** sandboxd of a running sandbox, reached the way the API reaches it on devnode. */
async function sandboxd(name: string): Promise<SandboxdClient> {
  const pod = await ns.core.readNamespacedPod({ name, namespace: ns.name });
  const secret = await ns.core.readNamespacedSecret({ name: `${name}-sandboxd`, namespace: ns.name });
  return new SandboxdClient({
    address: pod.metadata!.annotations![Annotations.sandboxdAddress]!,
    token: Buffer.from(secret.data!.token!, 'base64').toString(),
  });
}

async function sh(name: string, script: string): Promise<string> {
  return shIn(await sandboxd(name), script);
}

const gone = (read: () => Promise<unknown>) =>
  read().then(
    () => false,
    () => true,
  );

describe('operator', () => {
  test('a missing template is an Error that heals when the template appears', async () => {
    await apply('early', { templateRef: { name: template } });
    const s = await phase('early', 'Error');
    expect(s.status?.message).toBe(`ClusterSandboxTemplate "${template}" not found`);
    expect(s.status?.conditions?.find((c) => c.type === 'TemplateResolved')).toMatchObject({
      status: 'False',
      reason: 'TemplateNotFound',
    });
    await createTemplate();
    await phase('early', 'Running');
  }, 60_000);

  test('a raw Sandbox runs with what it owns; credentials stay secret; stop, resume, ports, delete', async () => {
    await ns.core.createNamespacedSecret({
      namespace: ns.name,
      body: { metadata: { name: 'creds' }, stringData: { key: 'sk-very-secret-value' } },
    });
    await apply('raw', {
      templateRef: { name: template },
      env: [{ name: 'GREETING', value: 'hello' }],
      credentials: { env: [{ name: 'API_KEY', secretName: 'creds', key: 'key' }] },
    });
    const running = await phase('raw', 'Running');
    expect(running.metadata.finalizers).toContain('svc.io/finalizer');
    expect(running.status?.podName).toBe('raw');
    const uid = running.metadata.uid;
    const pod: V1Pod = await ns.core.readNamespacedPod({ name: 'raw', namespace: ns.name });
    const claim = await ns.core.readNamespacedPersistentVolumeClaim({
      name: 'raw-workspace',
      namespace: ns.name,
    });
    const secret = await ns.core.readNamespacedSecret({ name: 'raw-sandboxd', namespace: ns.name });
    const policy = await ns.kc
      .makeApiClient(NetworkingV1Api)
      .readNamespacedNetworkPolicy({ name: 'sandbox-raw', namespace: ns.name });
    for (const o of [pod, claim, secret, policy])
      expect(o.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Sandbox', uid });
    expect(pod.spec?.automountServiceAccountToken).toBe(false);
    expect(pod.spec?.containers[0]?.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });

    expect(await sh('raw', 'echo "$GREETING $API_KEY"')).toBe('hello sk-very-secret-value\n');
    const events = await ns.core.listNamespacedEvent({ namespace: ns.name });
    expect(JSON.stringify(await get('raw'))).not.toContain('sk-very-secret-value');
    expect(JSON.stringify(events.items)).not.toContain('sk-very-secret-value');
    expect(logLines.length).toBeGreaterThan(0);
    const metrics = await ops[0]!.metrics.registry.metrics();
    expect(metrics).toMatch(/^svc_reconcile_total\{controller="sandbox",result="(ok|requeue)"\} [1-9]/m);
    expect(metrics).toMatch(/^svc_sandboxes\{phase="Running"\} [1-9]/m);
    expect(metrics).toMatch(
      /^svc_sandboxes_by_template\{phase="Running",template="ClusterSandboxTemplate\/[^"]+"\} [1-9]/m,
    );
    expect(metrics).toMatch(/^svc_workqueue_depth\{controller="sandbox"\} \d+$/m);
    expect(logLines.join('')).not.toContain('sk-very-secret-value');

    // Stop keeps the claim; resume finds the file written before.
    await sh('raw', 'echo before-stop > /workspace/kept');
    await patch('raw', { stopped: true });
    await phase('raw', 'Stopped');
    expect(await gone(() => ns.core.readNamespacedPod({ name: 'raw', namespace: ns.name }))).toBe(true);
    await patch('raw', { stopped: false });
    await phase('raw', 'Running');
    expect(await sh('raw', 'cat /workspace/kept')).toBe('before-stop\n');

    // Ports: a Service and an Ingress with the spec's names, status with the exact URLs.
    await patch('raw', { ports: [{ port: 8080, protocol: 'http' }] });
    let s: Sandbox | undefined;
    await eventually(
      async () => {
        s = await get('raw');
        return (s.status?.forwardedPorts?.length ?? 0) === 1;
      },
      { timeoutMs: 20_000, describe: () => JSON.stringify(s?.status) },
    );
    expect(s!.status?.forwardedPorts).toEqual([
      {
        port: 8080,
        protocol: 'http',
        internalUrl: `http://pf-raw-8080.${ns.name}.svc.cluster.local:8080`,
        previewUrl: `https://sandbox-raw-8080.${ns.name}.preview.example.test/`,
      },
    ]);
    const service = await ns.core.readNamespacedService({ name: 'pf-raw-8080', namespace: ns.name });
    expect(service.spec?.selector).toEqual({ 'svc.io/sandbox': 'raw' });
    const ingress = await ns.kc
      .makeApiClient(NetworkingV1Api)
      .readNamespacedIngress({ name: 'pf-raw-8080', namespace: ns.name });
    expect(ingress.spec?.ingressClassName).toBe('nginx');
    expect(ingress.spec?.rules?.[0]?.host).toBe(`sandbox-raw-8080.${ns.name}.preview.example.test`);
    await patch('raw', { ports: [] });
    await eventually(
      () => gone(() => ns.core.readNamespacedService({ name: 'pf-raw-8080', namespace: ns.name })),
      {
        timeoutMs: 20_000,
        describe: () => 'port service removed',
      },
    );
    await eventually(async () => (await get('raw')).status?.forwardedPorts?.length === 0, {
      timeoutMs: 20_000,
      describe: () => 'forwardedPorts emptied',
    });

    // A snapshot taken from it outlives it; what it owns does not.
    await snapshotClaim(ns, 'raw-snap', 'raw-workspace');
    // A clone of it becomes Running with the same files.
    await apply('raw-clone', { templateRef: { name: template }, cloneFromSnapshot: 'raw-snap' });
    await phase('raw-clone', 'Running');
    expect(await sh('raw-clone', 'cat /workspace/kept')).toBe('before-stop\n');

    await ns.custom.deleteNamespacedCustomObject({ ...sandboxes, namespace: ns.name, name: 'raw' });
    await eventually(() => gone(() => get('raw')), { timeoutMs: 30_000, describe: () => 'sandbox deleted' });
    for (const read of [
      () => ns.core.readNamespacedPod({ name: 'raw', namespace: ns.name }),
      () => ns.core.readNamespacedSecret({ name: 'raw-sandboxd', namespace: ns.name }),
    ])
      expect(await gone(read)).toBe(true);
    await eventually(
      () =>
        gone(() =>
          ns.core.readNamespacedPersistentVolumeClaim({ name: 'raw-workspace', namespace: ns.name }),
        ),
      {
        timeoutMs: 30_000,
        describe: () => 'claim deleted',
      },
    );
    expect(await gone(() => readSnapshot(ns, 'raw-snap'))).toBe(false);
  }, 180_000);

  test('a clone of a snapshot that does not exist becomes Error naming it', async () => {
    await apply('orphan', { templateRef: { name: template }, cloneFromSnapshot: 'no-such-snap' });
    const s = await phase('orphan', 'Error');
    expect(s.status?.message).toBe(`VolumeSnapshot "no-such-snap" not found in namespace ${ns.name}`);
  }, 60_000);

  test('a second replica waits for the Lease and takes over when the leader stops', async () => {
    let second: RunningOperator | undefined;
    const starting = operator('second').then((o) => (second = o));
    const lease = async () =>
      (
        (await ns.custom.getNamespacedCustomObject({
          group: 'coordination.k8s.io',
          version: 'v1',
          namespace: ns.name,
          plural: 'leases',
          name: 'svc-operator',
        })) as { spec: { holderIdentity: string } }
      ).spec.holderIdentity;
    expect(await lease()).toBe('first');
    expect(second).toBeUndefined();
    await ops.shift()!.stop();
    await starting;
    ops.push(second!);
    expect(await lease()).toBe('second');
  }, 60_000);
});
