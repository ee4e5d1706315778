// Lifetime under GitOps (issue 21, item 4): an expired sandbox is stopped through its
// status, never its spec, so a GitOps tool re-applying the original manifest (as Argo CD's
// self-heal does) does not start it again; a resume (API, or an annotation for kubectl
// users) does, with its workspace. Operator, API and devnode in-process.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Annotations, GROUP, VERSION, type Sandbox } from '../../core/index.ts';
import { SandboxdClient, mergePatch } from '../../kube/index.ts';
import { eventually } from '../../stack/index.ts';
import {
  kubeRequest,
  shIn,
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  type TestApi,
} from '../support/index.ts';

const ns = useNamespace('op-life');
useDevnode(ns);
const template = useClusterTemplate('op-life', ns, {});
/** The operator's log lines, parsed: a test waits on its `reconciled` lines. */
const lines: { name?: string; msg?: string }[] = [];
useOperator(ns, {
  identity: 'op-life',
  logger: pino({ level: 'debug' }, { write: (l: string) => void lines.push(JSON.parse(l) as never) }),
});
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi(ns);
});
afterAll(async () => {
  await api.close();
});

const ref = { group: GROUP, version: VERSION, plural: 'sandboxes' };
const TIMEOUT = '15s';
const path = (name: string) => `/apis/${GROUP}/${VERSION}/namespaces/${ns.name}/sandboxes/${name}`;

/** The manifest as it sits in Git. */
function manifest(name: string, annotations: Record<string, string> = {}) {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'Sandbox',
    metadata: { name, namespace: ns.name, annotations },
    spec: { templateRef: { name: template }, timeout: TIMEOUT },
  };
}

/** Server-side apply, as `kubectl apply --server-side --force-conflicts` or Argo CD do. */
async function serverSideApply(body: object): Promise<number> {
  const name = (body as { metadata: { name: string } }).metadata.name;
  const res = await kubeRequest(ns.kc, {
    method: 'PATCH',
    path: `${path(name)}?fieldManager=gitops&force=true`,
    headers: { 'content-type': 'application/apply-patch+yaml' },
    body,
  });
  return res.status;
}

async function get(name: string): Promise<Sandbox> {
  return (await ns.custom.getNamespacedCustomObject({ ...ref, namespace: ns.name, name })) as Sandbox;
}

const until = (name: string, what: string, ok: (s: Sandbox) => boolean): Promise<Sandbox> =>
  eventually(() => get(name), {
    timeoutMs: 90_000,
    until: ok,
    show: (s) => s.status,
    describe: `${name} ${what}`,
  });

const condition = (s: Sandbox, type: string) => s.status?.conditions?.find((c) => c.type === type);
const running = (s: Sandbox) => s.status?.phase === 'Running';
const expired = (s: Sandbox) => s.status?.phase === 'Stopped' && condition(s, 'Expired')?.status === 'True';

async function podGone(name: string): Promise<boolean> {
  return ns.core.readNamespacedPod({ name, namespace: ns.name }).then(
    () => false,
    () => true,
  );
}

async function sh(name: string, script: string): Promise<string> {
  const pod = await ns.core.readNamespacedPod({ name, namespace: ns.name });
  const secret = await ns.core.readNamespacedSecret({ name: `${name}-sandboxd`, namespace: ns.name });
  const client = new SandboxdClient({
    address: pod.metadata!.annotations![Annotations.sandboxdAddress]!,
    token: Buffer.from(secret.data!.token!, 'base64').toString(),
  });
  return shIn(client, script);
}

/** Runs `change`, then waits until the operator has reconciled `name` at least once after it. */
async function reconciledAfter(name: string, change: () => Promise<void>): Promise<void> {
  const mark = lines.length;
  await change();
  await eventually(
    () => Promise.resolve(lines.slice(mark).some((l) => l.name === name && l.msg === 'reconciled')),
    {
      timeoutMs: 30_000,
      describe: () => `a reconcile of ${name}`,
    },
  );
}

/** Expiry: Stopped with Expired true, the Pod gone, and spec exactly as the user wrote it. */
async function expectExpired(name: string): Promise<Sandbox> {
  const s = await until(name, 'expired', expired);
  expect(condition(s, 'Expired')).toMatchObject({
    status: 'True',
    reason: 'TimeoutExceeded',
    message: `stopped after its timeout of ${TIMEOUT}`,
  });
  expect(condition(s, 'Ready')).toMatchObject({ status: 'False', reason: 'Stopped' });
  expect(s.spec.stopped).toBe(false);
  await eventually(() => podGone(name), { timeoutMs: 30_000, describe: () => `${name}: Pod deleted` });
  return s;
}

describe('lifetime under GitOps', () => {
  test('an expired sandbox stays Stopped when its manifest is re-applied; the API resume runs it with its workspace', async () => {
    expect(await serverSideApply(manifest('gitops'))).toBe(201);
    await until('gitops', 'Running', running);
    expect(await sh('gitops', 'echo kept > /workspace/kept && cat /workspace/kept')).toBe('kept\n');
    const stopped = await expectExpired('gitops');
    const generation = stopped.metadata.generation;

    // Self-heal: the original manifest applied again (server-side, with a tracking
    // annotation so the apply is a real change), then its spec written over as a replace.
    await reconciledAfter('gitops', async () => {
      const tracked = manifest('gitops', { 'argocd.argoproj.io/tracking-id': 'demo:svc.io/Sandbox:gitops' });
      expect(await serverSideApply(tracked)).toBe(200);
    });
    const live = await get('gitops');
    const replaced = await kubeRequest(ns.kc, {
      method: 'PUT',
      path: path('gitops'),
      body: { ...live, spec: manifest('gitops').spec },
    });
    expect(replaced.status).toBe(200);
    await reconciledAfter('gitops', async () => {
      // A resume request from before the expiry (say, one kept in Git) is not a new one.
      await ns.custom.patchNamespacedCustomObject(
        {
          ...ref,
          namespace: ns.name,
          name: 'gitops',
          body: {
            metadata: { annotations: { [Annotations.resumeRequestedAt]: live.metadata.creationTimestamp } },
          },
        },
        mergePatch,
      );
    });
    const after = await get('gitops');
    expect(after.metadata.generation).toBe(generation);
    expect(after.status?.phase).toBe('Stopped');
    expect(condition(after, 'Expired')?.status).toBe('True');
    expect(await podGone('gitops')).toBe(true);

    const res = await api.call('POST', '/sandboxes/gitops/resume', { key: api.keys.admin });
    expect(res.status).toBe(202);
    const body = (await res.json()) as Sandbox;
    expect(body.spec.stopped).toBe(false);
    expect(Date.parse(body.metadata.annotations?.[Annotations.resumeRequestedAt] ?? '')).toBeGreaterThan(
      Date.parse(condition(after, 'Expired')!.lastTransitionTime),
    );
    const resumed = await until('gitops', 'Running again', running);
    expect(condition(resumed, 'Expired')).toMatchObject({ status: 'False', reason: 'Resumed' });
    expect(await sh('gitops', 'cat /workspace/kept')).toBe('kept\n');
  }, 240_000);

  test('kubectl users resume with the svc.io/resume-requested-at annotation', async () => {
    expect(await serverSideApply(manifest('kubectl'))).toBe(201);
    await until('kubectl', 'Running', running);
    await expectExpired('kubectl');
    await ns.custom.patchNamespacedCustomObject(
      {
        ...ref,
        namespace: ns.name,
        name: 'kubectl',
        body: { metadata: { annotations: { [Annotations.resumeRequestedAt]: new Date().toISOString() } } },
      },
      mergePatch,
    );
    const resumed = await until('kubectl', 'Running again', running);
    expect(condition(resumed, 'Expired')).toMatchObject({ status: 'False', reason: 'Resumed' });
  }, 240_000);
});
