// Credentials through the API on the whole stack: a user names only Secrets that are theirs
// (or shared with them), never a sandbox's token or the service's own Secrets; their own
// Secret, made through POST /secrets, reaches their sandbox's agent. Namespaces opt in.
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GROUP, SseParser, VERSION } from '../../core/index.ts';
import {
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  type TestApi,
  waitForSandboxPhase,
} from '../support/index.ts';

const ns = useNamespace('creds');
/** A namespace that exists but is not enabled for sandboxes. */
const plain = `creds-plain-${Math.random().toString(16).slice(2, 8)}`;
useDevnode(ns);
useOperator(ns, { identity: 'credentials-test', logger: pino({ level: 'silent' }) });
const template = useClusterTemplate('creds', ns, { agent: { maxConcurrentInvokes: 2 } });
let api: TestApi;
/** A key for dave, member of the group `team-a`. */
let dave = '';
const ALICE_VALUE = 'sk-alice-7f3a9c1e';
const BOB_VALUE = 'bob-shared-d41d8cd9';
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

beforeAll(async () => {
  api = await startTestApi(ns, { statusWaitMs: 60_000 });
  dave = (await api.deps.keys.create({ user: 'dave', groups: ['team-a'] })).key;
  await ns.core.createNamespace({ body: { metadata: { name: plain } } });
  // kube-system labelled as enabled: it must stay refused anyway.
  await ns.core.patchNamespace(
    { name: 'kube-system', body: { metadata: { labels: { 'svc.io/sandboxes': 'enabled' } } } },
    merge,
  );
}, 60_000);

afterAll(async () => {
  await ns.core.patchNamespace(
    { name: 'kube-system', body: { metadata: { labels: { 'svc.io/sandboxes': null } } } },
    merge,
  );
  await ns.core.deleteNamespace({ name: plain }).catch(() => undefined);
  await api?.close();
}, 30_000);

const json = async (res: Response) => (await res.json()) as Record<string, unknown>;

async function create(key: string, name: string, spec: object, query = ''): Promise<Response> {
  return api.call('POST', `/sandboxes${query}`, {
    key,
    body: { name, templateRef: { name: template }, ...spec },
  });
}

const envFrom = (secretName: string, key: string, name = 'STOLEN') => ({
  credentials: { env: [{ name, secretName, key }] },
});

/** The spec's 403 with exactly one violation of `code`. */
async function expectViolation(res: Response, code: string, includes: string): Promise<void> {
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(403);
  expect(body.error).toBe('policy_violation');
  const violations = body.violations as { code: string; message: string }[];
  expect(violations.map((v) => v.code)).toEqual([code]);
  expect(violations[0]!.message).toContain(includes);
}

async function sandboxExists(name: string): Promise<boolean> {
  return (await api.call('GET', `/sandboxes/${name}`, { key: api.keys.admin })).status === 200;
}

async function phase(name: string, want: string): Promise<void> {
  await waitForSandboxPhase(ns, name, want, 120_000);
}

/** An SSE call through the app; its events in order. */
async function stream(path: string, key: string, body: string, contentType = 'application/json') {
  const res = await api.call('POST', path, { key, body, headers: { 'content-type': contentType } });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return new SseParser()
    .push(text)
    .map((m) => ({ event: m.event, data: JSON.parse(m.data) as Record<string, unknown> }));
}

describe('namespaces opt in', () => {
  test('alice can create nothing in svc-system, kube-system (labelled) or an unlabelled namespace', async () => {
    for (const namespace of ['svc-system', 'kube-system', plain]) {
      const made = await create(api.keys.alice, 'nope', {}, `?namespace=${namespace}`);
      await expectViolation(made, 'namespace_not_enabled', `namespace ${namespace}`);
      const secret = await api.call('POST', `/secrets?namespace=${namespace}`, {
        key: api.keys.alice,
        body: { name: 'nope', data: { k: 'v' } },
      });
      await expectViolation(secret, 'namespace_not_enabled', `namespace ${namespace}`);
    }
    // Not even an admin.
    await expectViolation(
      await create(api.keys.admin, 'nope', {}, '?namespace=svc-system'),
      'namespace_not_enabled',
      'can never hold sandboxes',
    );
    const missing = await create(api.keys.alice, 'nope', {}, '?namespace=creds-does-not-exist');
    expect(missing.status).toBe(404);
    expect(await json(missing)).toEqual({
      error: 'not_found',
      message: 'namespaces "creds-does-not-exist" not found',
    });
    const list = (await ns.custom.listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'sandboxes',
      namespace: plain,
    })) as { items: unknown[] };
    expect(list.items).toEqual([]);
  });
});

describe('credentials only from Secrets the caller may use', () => {
  test('POST /secrets stores a value nobody reads back; GET lists names and keys of one’s own', async () => {
    const made = await api.call('POST', '/secrets', {
      key: api.keys.alice,
      body: { name: 'alice-openai', data: { key: ALICE_VALUE } },
    });
    const text = await made.text();
    expect(made.status, text).toBe(201);
    expect(text).not.toContain(ALICE_VALUE);
    expect(JSON.parse(text)).toMatchObject({
      name: 'alice-openai',
      namespace: ns.name,
      owner: 'alice',
      keys: ['key'],
    });
    const stored = await ns.core.readNamespacedSecret({ name: 'alice-openai', namespace: ns.name });
    expect(stored.metadata?.labels).toEqual({ 'svc.io/owner': 'alice' });
    expect(Buffer.from(stored.data!.key!, 'base64').toString()).toBe(ALICE_VALUE);

    const mine = await api.call('GET', '/secrets', { key: api.keys.alice });
    const mineText = await mine.text();
    expect(mine.status).toBe(200);
    expect(mineText).not.toContain(ALICE_VALUE);
    expect((JSON.parse(mineText) as { items: { name: string; keys: string[] }[] }).items).toEqual([
      expect.objectContaining({ name: 'alice-openai', keys: ['key'], owner: 'alice' }),
    ]);
    const bobs = await api.call('GET', '/secrets', { key: api.keys.bob });
    expect(await bobs.json()).toEqual({ items: [] });
    // Another user's Secret is not there for bob to delete.
    const del = await api.call('DELETE', '/secrets/alice-openai', { key: api.keys.bob });
    expect(del.status).toBe(404);
    // The service's names and token-like names cannot be taken.
    for (const name of ['svc-api-keys', 'svc-sandboxd-key', 'someone-sandboxd']) {
      const taken = await api.call('POST', '/secrets', {
        key: api.keys.alice,
        body: { name, data: { k: 'v' } },
      });
      expect(taken.status).toBe(400);
      expect((await json(taken)).error).toBe('reserved_name');
    }
    const dup = await api.call('POST', '/secrets', {
      key: api.keys.bob,
      body: { name: 'alice-openai', data: { key: 'x' } },
    });
    expect(dup.status).toBe(409);
    const bad = await api.call('POST', '/secrets', {
      key: api.keys.bob,
      body: { name: 'Bad/Name', data: { k: 'v' } },
    });
    expect(bad.status).toBe(400);
  });

  test('alice’s own Secret reaches her agent; bob naming it or any token Secret is refused', async () => {
    // bob shares a Secret with alice (made with kubectl, annotated), and with team-a.
    await ns.core.createNamespacedSecret({
      namespace: ns.name,
      body: {
        metadata: {
          name: 'bob-shared',
          labels: { 'svc.io/owner': 'bob' },
          annotations: { 'svc.io/allowed-users': 'carol, alice', 'svc.io/allowed-groups': 'team-a' },
        },
        stringData: { token: BOB_VALUE },
      },
    });
    const made = await create(api.keys.alice, 'alice-agent', {
      mode: 'agent',
      credentials: {
        env: [
          { name: 'OPENAI_KEY', secretName: 'alice-openai', key: 'key' },
          { name: 'SHARED', secretName: 'bob-shared', key: 'token' },
        ],
      },
    });
    expect(made.status, await made.clone().text()).toBe(201);
    await phase('alice-agent', 'Running');
    const configured = await stream(
      '/sandboxes/alice-agent/configure',
      api.keys.alice,
      JSON.stringify({ entrypoint: ['sh', '-c', 'printf "%s|%s" "$OPENAI_KEY" "$SHARED"'] }),
    );
    expect(configured.at(-1)?.event).toBe('result');
    const invoked = await stream(
      '/sandboxes/alice-agent/invoke',
      api.keys.alice,
      '',
      'application/octet-stream',
    );
    const stdout = invoked
      .filter((e) => e.event === 'log' && e.data.stream === 'stdout')
      .map((e) => e.data.data)
      .join('');
    expect(stdout).toBe(`${ALICE_VALUE}|${BOB_VALUE}`);
    expect(invoked.at(-1)).toMatchObject({ event: 'exit', data: { exitCode: 0 } });

    // bob, and dave (not in any list), may not name alice's Secret.
    for (const [key, who] of [
      [api.keys.bob, 'bob'],
      [dave, 'dave'],
    ] as const) {
      const res = await create(key, `${who}-steals`, envFrom('alice-openai', 'key'));
      const text = await res.clone().text();
      expect(text).not.toContain(ALICE_VALUE);
      await expectViolation(res, 'credential_not_allowed', `Secret alice-openai is not ${who}'s to use`);
      expect(await sandboxExists(`${who}-steals`)).toBe(false);
    }
    // As files too.
    await expectViolation(
      await create(api.keys.bob, 'bob-files', {
        credentials: { files: [{ secretName: 'alice-openai', mountPath: '/secrets/a' }] },
      }),
      'credential_not_allowed',
      'alice-openai',
    );
    // dave may use bob's through his group.
    const shared = await create(dave, 'dave-shared', { stopped: true, ...envFrom('bob-shared', 'token') });
    expect(shared.status, await shared.clone().text()).toBe(201);

    // A sandbox's token Secret, and the service's own, are nobody's: not bob's, not alice's
    // (her own sandbox's), not an admin's.
    for (const secret of ['alice-agent-sandboxd', 'svc-sandboxd-key', 'svc-api-keys']) {
      for (const [key, who] of [
        [api.keys.bob, 'bob'],
        [api.keys.alice, 'alice'],
        [api.keys.admin, 'root'],
      ] as const) {
        const res = await create(key, `${who}-token`, envFrom(secret, 'token'));
        await expectViolation(res, 'credential_not_allowed', `Secret ${secret} is`);
        expect(await sandboxExists(`${who}-token`)).toBe(false);
      }
    }
    // Secrets a sandbox owns are refused by their label as well, whatever their name.
    await ns.core.createNamespacedSecret({
      namespace: ns.name,
      body: {
        metadata: {
          name: 'renamed-token',
          labels: { 'svc.io/sandbox': 'alice-agent', 'svc.io/owner': 'alice' },
        },
        stringData: { token: 'x' },
      },
    });
    await expectViolation(
      await create(api.keys.admin, 'admin-renamed', envFrom('renamed-token', 'token')),
      'credential_not_allowed',
      'renamed-token',
    );
    // An admin may use a user's Secret.
    const admin = await create(api.keys.admin, 'admin-uses', {
      stopped: true,
      ...envFrom('alice-openai', 'key'),
    });
    expect(admin.status, await admin.clone().text()).toBe(201);

    // A Secret or key that does not exist: 400 naming it.
    const missing = await create(api.keys.alice, 'missing', envFrom('no-such-secret', 'key'));
    expect(missing.status).toBe(400);
    expect(await json(missing)).toMatchObject({
      error: 'credential_not_found',
      message: `Secret no-such-secret does not exist in namespace ${ns.name}`,
    });
    const noKey = await create(api.keys.alice, 'missing', envFrom('alice-openai', 'nokey'));
    expect(noKey.status).toBe(400);
    expect(await json(noKey)).toMatchObject({
      error: 'credential_not_found',
      message: 'Secret alice-openai has no key nokey',
    });

    // A clone keeps references only the cloning user may still use: bob withdraws alice.
    await ns.core.patchNamespacedSecret(
      {
        name: 'bob-shared',
        namespace: ns.name,
        body: { metadata: { annotations: { 'svc.io/allowed-users': 'carol' } } },
      },
      merge,
    );
    const clone = await api.call('POST', '/sandboxes/alice-agent/clone', {
      key: api.keys.alice,
      body: { name: 'alice-clone' },
    });
    await expectViolation(clone, 'credential_not_allowed', 'Secret bob-shared is not alice');
    expect(await sandboxExists('alice-clone')).toBe(false);

    // alice deletes her Secret: gone for good.
    expect((await api.call('DELETE', '/secrets/alice-openai', { key: api.keys.alice })).status).toBe(204);
    expect(await (await api.call('GET', '/secrets', { key: api.keys.alice })).json()).toEqual({ items: [] });
    expect((await api.call('DELETE', '/secrets/alice-openai', { key: api.keys.alice })).status).toBe(404);
  }, 240_000);
});
