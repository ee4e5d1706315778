// A sandbox the kubelet evicted (issue 33, deliverable 4): devnode runs the Pod, the test
// writes the eviction to the Pod's status subresource and the kubelet's Event through the
// apiserver, as a kubelet does, and the Sandbox, its Events and the API's GET say why; a
// resume through the API brings a new Pod.
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
const KUBELET_64 = 'Pod ephemeral local storage usage exceeds the total limit of containers 64Mi.';

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

  test("a Pod that ended Succeeded (sandboxd exits 0 on the eviction's SIGTERM): Error, PodEnded, then Evicted with the kubelet's Event's message once that Event is there", async () => {
    // What the real kubelet leaves of an ephemeral-storage eviction: the Pod Succeeded with no
    // reason, and a Warning Event `Evicted` on the Pod (the test writes both, as the kubelet does).
    const ended = async (name: string) => {
      const podName = (await waitForSandboxPhase(ns, name, 'Running')).status!.podName!;
      const pod = await ns.core.readNamespacedPod({ name: podName, namespace: ns.name });
      return { podName, uid: pod.metadata!.uid! };
    };
    const succeed = (podName: string) =>
      ns.core.patchNamespacedPodStatus(
        {
          name: podName,
          namespace: ns.name,
          body: {
            status: {
              phase: 'Succeeded',
              conditions: [{ type: 'Ready', status: 'False', reason: 'PodCompleted' }],
            },
          },
        },
        mergePatch,
      );
    const kubeletEvent = (podName: string, uid: string) =>
      ns.core.createNamespacedEvent({
        namespace: ns.name,
        body: {
          metadata: { generateName: `${podName}.`, namespace: ns.name },
          involvedObject: { apiVersion: 'v1', kind: 'Pod', name: podName, namespace: ns.name, uid },
          reason: 'Evicted',
          message: KUBELET_64,
          type: 'Warning',
          source: { component: 'kubelet', host: 'n1' },
          firstTimestamp: new Date(),
          lastTimestamp: new Date(),
          count: 1,
        },
      });
    const ready = async (name: string) =>
      (
        (await ns.custom.getNamespacedCustomObject({
          group: 'svc.io',
          version: 'v1alpha1',
          namespace: ns.name,
          plural: 'sandboxes',
          name,
        })) as Sandbox
      ).status?.conditions?.find((c) => c.type === 'Ready');
    // By reason: the list comes in name order, and Event names are generated.
    const sandboxEvents = async (name: string) =>
      (
        await ns.core.listNamespacedEvent({
          namespace: ns.name,
          fieldSelector: `involvedObject.kind=Sandbox,involvedObject.name=${name}`,
        })
      ).items
        .filter((e) => e.type === 'Warning')
        .map((e) => [e.reason, e.message])
        .sort();

    await Promise.all([
      createSandbox(ns, 'late', { templateRef: { name: template } }),
      createSandbox(ns, 'early', { templateRef: { name: template } }),
    ]);
    const [late, early] = await Promise.all([ended('late'), ended('early')]);

    // The Pod ends before its Event comes: the sandbox is done with it at once (not Creating).
    await succeed(late.podName);
    const PLAIN = 'the sandbox Pod ended (phase Succeeded) and the kubelet gave no reason';
    await expect.poll(async () => (await ready('late'))?.reason, { timeout: 30_000 }).toBe('PodEnded');
    expect(await ready('late')).toMatchObject({ status: 'False', message: PLAIN });
    // Then the kubelet's Event: the sandbox says so, with the kubelet's words.
    await kubeletEvent(late.podName, late.uid);
    await expect.poll(async () => (await ready('late'))?.reason, { timeout: 30_000 }).toBe('Evicted');
    expect(await ready('late')).toMatchObject({ status: 'False', message: KUBELET_64 });

    // The usual order on a real node: the Event first, then the Pod's end.
    await kubeletEvent(early.podName, early.uid);
    await succeed(early.podName);
    await expect.poll(async () => (await ready('early'))?.reason, { timeout: 30_000 }).toBe('Evicted');

    const EVICTED = `the kubelet evicted the sandbox Pod: ${KUBELET_64}; resume the sandbox to start it again`;
    const res = await api.call('GET', '/sandboxes/early', { key: api.keys.admin });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Sandbox;
    expect(body.status).toMatchObject({ phase: 'Error', message: EVICTED });
    expect(body.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'Evicted',
      message: KUBELET_64,
    });

    // kubectl describe: one Warning Event per change of why.
    await expect
      .poll(() => sandboxEvents('late'), { timeout: 10_000 })
      .toEqual([
        ['Evicted', EVICTED],
        ['PodEnded', `${PLAIN}; resume the sandbox to start it again`],
      ]);
    await expect.poll(() => sandboxEvents('early'), { timeout: 10_000 }).toEqual([['Evicted', EVICTED]]);

    // The ended Pod stays until a resume, which brings a new one.
    expect((await ns.core.readNamespacedPod({ name: early.podName, namespace: ns.name })).metadata?.uid).toBe(
      early.uid,
    );
    expect((await api.call('POST', '/sandboxes/late/resume', { key: api.keys.admin })).status).toBe(202);
    await waitForSandboxPhase(ns, 'late', 'Running', 60_000);
    expect(
      (await ns.core.readNamespacedPod({ name: late.podName, namespace: ns.name })).metadata?.uid,
    ).not.toBe(late.uid);
  }, 180_000);
});
