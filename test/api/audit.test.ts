import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../api/index.ts';
import type { Sandbox } from '../../core/index.ts';
import { CoreV1Api } from '@kubernetes/client-node';
import { eventually } from '../../stack/index.ts';
import { kubeRequest, startTestApi, useNamespace, type TestApi } from '../support/index.ts';

const ns = useNamespace('api-audit');
let api: TestApi;

async function sandbox(key: string, name: string): Promise<Sandbox> {
  const res = await api.call('POST', '/sandboxes', { key, body: { name, templateRef: { name: 'default' } } });
  expect(res.status).toBe(201);
  return (await res.json()) as Sandbox;
}

async function events(key: string, query = ''): Promise<{ items: AuditRecord[]; continue?: string }> {
  const res = await api.call('GET', `/audit/events?namespace=${ns.name}${query}`, { key });
  expect(res.status).toBe(200);
  return (await res.json()) as { items: AuditRecord[]; continue?: string };
}

beforeAll(async () => {
  api = await startTestApi(ns);
  const alices = await sandbox(api.keys.alice, 'alices');
  const bobs = await sandbox(api.keys.bob, 'bobs');
  // Written one after another: Event times carry microseconds, so the order is checkable.
  for (const [s, reason, actor] of [
    [alices, 'AgentConfigured', 'alice'],
    [bobs, 'AgentConfigured', 'bob'],
    [alices, 'AgentInvokeCompleted', 'alice'],
    [alices, 'ConfigureDenied', 'root'],
  ] as const) {
    await api.deps.audit.record({
      sandbox: s,
      reason,
      type: reason === 'ConfigureDenied' ? 'Warning' : 'Normal',
      message: `${reason} by ${actor}`,
      actor,
    });
  }
});
afterAll(async () => api.close());

describe('GET /api/v1/audit/events', () => {
  it('gives an admin every event, newest first, as records', async () => {
    const { items } = await events(api.keys.admin);
    expect(items.map((r) => r.reason)).toEqual([
      'ConfigureDenied',
      'AgentInvokeCompleted',
      'AgentConfigured',
      'AgentConfigured',
    ]);
    expect(items[0]).toMatchObject({
      reason: 'ConfigureDenied',
      type: 'Warning',
      sandbox: 'alices',
      namespace: ns.name,
      actor: 'root',
      message: 'ConfigureDenied by root',
      involvedObject: { apiVersion: 'svc.io/v1alpha1', kind: 'Sandbox', name: 'alices', namespace: ns.name },
    });
  });

  it('shows a user only the events of their own sandboxes', async () => {
    expect((await events(api.keys.bob)).items.map((r) => r.sandbox)).toEqual(['bobs']);
    expect(new Set((await events(api.keys.alice)).items.map((r) => r.sandbox))).toEqual(new Set(['alices']));
  });

  it('filters by sandbox, reason and since', async () => {
    expect((await events(api.keys.admin, '&sandbox=bobs')).items).toHaveLength(1);
    expect(
      (await events(api.keys.admin, '&reason=AgentConfigured')).items.map((r) => r.sandbox).sort(),
    ).toEqual(['alices', 'bobs']);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    expect((await events(api.keys.admin, `&since=${encodeURIComponent(later)}`)).items).toEqual([]);
    const earlier = new Date(Date.now() - 3_600_000).toISOString();
    expect((await events(api.keys.admin, `&since=${encodeURIComponent(earlier)}`)).items).toHaveLength(4);
  });

  it('paginates with limit and continue', async () => {
    const first = await events(api.keys.admin, '&limit=3');
    expect(first.items).toHaveLength(3);
    const second = await events(api.keys.admin, `&limit=3&continue=${first.continue}`);
    expect(second.items).toHaveLength(1);
    expect(second.continue).toBeUndefined();
    expect([...first.items, ...second.items].map((r) => r.id)).toEqual(
      (await events(api.keys.admin)).items.map((r) => r.id),
    );
  });

  it('answers 401 to anonymous callers and 400 to a bad since', async () => {
    expect((await api.call('GET', '/audit/events')).status).toBe(401);
    expect((await api.call('GET', '/audit/events?since=yesterday', { key: api.keys.admin })).status).toBe(
      400,
    );
  });

  it("a re-created sandbox of the same name does not see its predecessor's events", async () => {
    const first = await sandbox(api.keys.alice, 'again');
    await api.deps.audit.record({
      sandbox: first,
      reason: 'AgentConfigured',
      type: 'Normal',
      message: 'by the first again',
      actor: 'alice',
    });
    // An Event as the operator writes one: about the Sandbox's uid, no owner annotation.
    const now = new Date();
    await ns.kc.makeApiClient(CoreV1Api).createNamespacedEvent({
      namespace: ns.name,
      body: {
        metadata: { generateName: 'again.' },
        involvedObject: {
          apiVersion: 'svc.io/v1alpha1',
          kind: 'Sandbox',
          name: 'again',
          namespace: ns.name,
          uid: first.metadata.uid,
        },
        reason: 'Ready',
        type: 'Normal',
        message: "the first again's Pod is ready",
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
        source: { component: 'svc-operator' },
      },
    });
    // Gone (no operator here to lift its finalizer), then made again by bob.
    expect((await api.call('DELETE', '/sandboxes/again', { key: api.keys.alice })).status).toBe(202);
    const patched = await kubeRequest(ns.kc, {
      method: 'PATCH',
      path: `/apis/svc.io/v1alpha1/namespaces/${ns.name}/sandboxes/again`,
      headers: { 'content-type': 'application/merge-patch+json' },
      body: { metadata: { finalizers: null } },
    });
    expect([200, 404]).toContain(patched.status);
    await eventually(
      async () => (await api.call('GET', '/sandboxes/again', { key: api.keys.admin })).status === 404,
      {
        timeoutMs: 30_000,
        describe: () => 'the first again deleted',
      },
    );
    const second = await sandbox(api.keys.bob, 'again');
    await eventually(
      () => Promise.resolve(api.deps.cache.get(ns.name, 'again')?.metadata.uid === second.metadata.uid),
      {
        timeoutMs: 30_000,
        describe: () => 'the second again in the cache',
      },
    );
    await api.deps.audit.record({
      sandbox: second,
      reason: 'AgentConfigured',
      type: 'Normal',
      message: 'by the second again',
      actor: 'bob',
    });

    const messages = (items: AuditRecord[]) =>
      items.filter((r) => r.sandbox === 'again').map((r) => r.message);
    expect(messages((await events(api.keys.bob)).items)).toEqual(['by the second again']);
    expect(messages((await events(api.keys.bob, '&sandbox=again')).items)).toEqual(['by the second again']);
    const admin = (await events(api.keys.admin, '&sandbox=again')).items;
    expect(messages(admin)).toEqual(['by the second again']);
    expect(admin[0]!.involvedObject.uid).toBe(second.metadata.uid);
    // Alice keeps the record of her own sandbox, which is not the one now named again.
    expect(messages((await events(api.keys.alice)).items)).toEqual(['by the first again']);
    expect((await events(api.keys.alice, '&sandbox=again')).items).toEqual([]);
  });
});
