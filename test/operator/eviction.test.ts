// A sandbox the kubelet evicted (issue 33, deliverable 4): devnode runs the Pod, the test
// writes the eviction to the Pod's status subresource as a kubelet does, and the Sandbox,
// its Event and the API's GET say why; a resume through the API brings a new Pod.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Sandbox } from '../../core/index.ts';
import { mergePatch } from '../../kube/index.ts';
import {
  createSandbox,
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  waitForSandboxPhase,
  type TestApi,
} from '../support/index.ts';

const ns = useNamespace('op-evict');
useDevnode(ns);
const template = useClusterTemplate('op-evict', ns, {});
useOperator(ns, { identity: 'op-evict', logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }) });
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi(ns);
});
afterAll(async () => api.close());

const KUBELET = 'Pod ephemeral local storage usage exceeds the total limit of containers 10Gi.';

describe('eviction', () => {
  test("an evicted sandbox is Error with Ready False Evicted and the kubelet's message, once as an Event; a resume runs it again", async () => {
    await createSandbox(ns, 'full', { templateRef: { name: template } });
    const running = await waitForSandboxPhase(ns, 'full', 'Running');
    const podName = running.status!.podName!;
    const before = (await ns.core.readNamespacedPod({ name: podName, namespace: ns.name })).metadata!.uid;

    // What the kubelet writes when it evicts a Pod.
    await ns.core.patchNamespacedPodStatus(
      {
        name: podName,
        namespace: ns.name,
        body: { status: { phase: 'Failed', reason: 'Evicted', message: KUBELET } },
      },
      mergePatch,
    );

    const failed = await waitForSandboxPhase(ns, 'full', 'Error', 30_000);
    expect(failed.status?.message).toBe(
      `the kubelet evicted the sandbox Pod: ${KUBELET}; resume the sandbox to start it again`,
    );
    expect(failed.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'Evicted',
      message: KUBELET,
    });

    // The API passes the status through.
    const res = await api.call('GET', '/sandboxes/full', { key: api.keys.admin });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Sandbox;
    expect(body.status).toMatchObject({ phase: 'Error', message: failed.status?.message });
    expect(body.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'Evicted',
      message: KUBELET,
    });

    // One Warning Event `Evicted` on the Sandbox, for kubectl describe; and the evicted Pod is
    // left alone (no silent recreate, which a full workspace would evict again at once).
    const evictedEvents = async () =>
      (
        await ns.core.listNamespacedEvent({
          namespace: ns.name,
          fieldSelector: 'involvedObject.kind=Sandbox,involvedObject.name=full',
        })
      ).items.filter((e) => e.reason === 'Evicted');
    await expect.poll(async () => (await evictedEvents()).length, { timeout: 10_000 }).toBe(1);
    const [event] = await evictedEvents();
    expect(event).toMatchObject({ type: 'Warning', message: failed.status?.message });
    expect(event!.count ?? 1).toBe(1);
    const pod = await ns.core.readNamespacedPod({ name: podName, namespace: ns.name });
    expect(pod.metadata?.uid).toBe(before);
    expect(pod.status?.phase).toBe('Failed');

    // A resume through the API replaces the evicted Pod and the sandbox runs again.
    const resumed = await api.call('POST', '/sandboxes/full/resume', { key: api.keys.admin });
    expect(resumed.status).toBe(202);
    const again = await waitForSandboxPhase(ns, 'full', 'Running', 60_000);
    expect(again.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'True',
      reason: 'PodReady',
    });
    const fresh = await ns.core.readNamespacedPod({ name: podName, namespace: ns.name });
    expect(fresh.metadata?.uid).not.toBe(before);
    expect((await evictedEvents()).length).toBe(1);
  }, 180_000);
});
