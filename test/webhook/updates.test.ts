// Direct CR writes after a create (kubectl patch as an impersonated user), through the real
// apiserver, with the webhook wired as `svc webhook` wires it: an update that changes what
// the sandbox runs is judged like a create; `spec.cloneFromSnapshot` names only the
// writer's own snapshots; `spec.env` never sets sandboxd's own variables.
import { describe, expect, it } from 'vitest';
import type { Policy } from '../../core/index.ts';
import { SandboxNamespaces, snapshotMarks } from '../../core/index.ts';
import {
  Governance,
  NamespaceGate,
  QuotaLedger,
  SecretAccessReviewer,
  SnapshotOwners,
} from '../../kube/index.ts';
import { sandboxAdmission } from '../../webhook/index.ts';
import {
  API_SA,
  createSandboxAs,
  kubeRequest,
  useNamespace,
  useWebhook,
  type RawResponse,
} from '../support/index.ts';

const ns = useNamespace('whupd');
// The test namespace plays the service namespace: its `svc-governance` holds the policies.
const webhook = useWebhook(ns, 'updates', (policies) =>
  sandboxAdmission({
    governance: new Governance(ns.kc, policies, new QuotaLedger(ns.kc)),
    namespaces: new NamespaceGate(ns.kc, ns.name),
    reviewer: new SecretAccessReviewer(ns.kc),
    snapshots: new SnapshotOwners(ns.kc),
    apiServiceAccount: API_SA,
  }),
);

/** A namespace for one case, enabled and in the webhook's selector, where alice and bob write Sandboxes. */
const namespace = (suffix: string, policy: Policy) =>
  webhook.namespace(suffix, policy, {
    labels: { [SandboxNamespaces.label]: SandboxNamespaces.enabled },
    writers: ['alice', 'bob', API_SA],
    verbs: ['create', 'get', 'patch'],
  });

/** `kubectl patch --type merge` as `user`. */
const patchAs = (user: string, namespace: string, name: string, spec: object) =>
  kubeRequest(ns.kc, {
    method: 'PATCH',
    path: `/apis/svc.io/v1alpha1/namespaces/${namespace}/sandboxes/${name}`,
    headers: { 'impersonate-user': user, 'content-type': 'application/merge-patch+json' },
    body: { spec },
  });

/** The apiserver's Status for a denial by the validating webhook: 403 with its message. */
function expectDenied(res: RawResponse, message: string) {
  expect(res.status).toBe(403);
  expect(res.json()).toMatchObject({ kind: 'Status', code: 403, reason: 'Forbidden' });
  expect(res.json<{ message: string }>().message).toBe(
    `admission webhook "validate.sandboxes.svc.io" denied the request: ${message}`,
  );
}

describe('governance on update', () => {
  it('a patch of spec.image to an unapproved registry is denied; to an approved one admitted', async () => {
    const target = await namespace('image', { approvedRegistries: ['ghcr.io/acme/'] });
    const created = await createSandboxAs(ns.kc, 'alice', target, 'x', {
      image: { repository: 'ghcr.io/acme/tools' },
    });
    expect(created.status).toBe(201);
    expectDenied(
      await patchAs('alice', target, 'x', { image: { repository: 'docker.io/evil/x' } }),
      'policy_violation: image_registry_not_approved: image "docker.io/evil/x" is not from an approved registry [ghcr.io/acme/]',
    );
    const approved = await patchAs('alice', target, 'x', { image: { repository: 'ghcr.io/acme/other' } });
    expect(approved.status).toBe(200);
    expect(approved.json<{ spec: { image: unknown } }>().spec.image).toEqual({
      repository: 'ghcr.io/acme/other',
    });
  });

  it('a resources patch over maxCpu is denied; timeout over maxTimeout too', async () => {
    const target = await namespace('cpu', { maxCpu: '2', maxTimeout: '1h' });
    expect((await createSandboxAs(ns.kc, 'alice', target, 'x', { timeout: '30m' })).status).toBe(201);
    expectDenied(
      await patchAs('alice', target, 'x', { resources: { limits: { cpu: '4' } } }),
      'policy_violation: cpu_limit_exceeded: CPU limit 4 is above maxCpu 2',
    );
    expectDenied(
      await patchAs('alice', target, 'x', { timeout: '2h' }),
      'policy_violation: timeout_exceeded: timeout 2h is above maxTimeout 1h',
    );
    expect((await patchAs('alice', target, 'x', { resources: { limits: { cpu: '1' } } })).status).toBe(200);
  });

  it('an update does not count the sandbox against the quotas it already counts in', async () => {
    const target = await namespace('quota', { maxSandboxesPerUser: 1, maxSandboxesTotal: 1 });
    expect((await createSandboxAs(ns.kc, 'alice', target, 'x')).status).toBe(201);
    const res = await patchAs('alice', target, 'x', { timeout: '10m', resources: { limits: { cpu: '1' } } });
    expect(res.status).toBe(200);
  });

  it('a write that changes nothing governed passes a sandbox a policy has since tightened against', async () => {
    const target = await namespace('tightened', {});
    expect(
      (await createSandboxAs(ns.kc, 'alice', target, 'x', { resources: { limits: { cpu: '4' } } })).status,
    ).toBe(201);
    await webhook.policies.put({ maxCpu: '2' }, target);
    expect((await patchAs('alice', target, 'x', { stopped: true })).status).toBe(200);
    expect((await patchAs('alice', target, 'x', { ports: [{ port: 8080 }] })).status).toBe(200);
    expectDenied(
      await patchAs('alice', target, 'x', { resources: { limits: { cpu: '8' } } }),
      'policy_violation: cpu_limit_exceeded: CPU limit 8 is above maxCpu 2',
    );
  });
});

describe("sandboxd's own variables", () => {
  const reserved =
    'invalid_request: spec.env[0].name: SANDBOXD_TOKEN is reserved: variables starting with SANDBOXD_ are settings of sandboxd, which the sandbox must not override';

  it('a kubectl Sandbox with SANDBOXD_TOKEN in spec.env is denied, at create and by a patch', async () => {
    const target = await namespace('env', {});
    expectDenied(
      await createSandboxAs(ns.kc, 'alice', target, 'x', {
        env: [{ name: 'SANDBOXD_TOKEN', value: 'mine' }],
      }),
      reserved,
    );
    expect(
      (await createSandboxAs(ns.kc, 'alice', target, 'y', { env: [{ name: 'TOKEN', value: 'mine' }] }))
        .status,
    ).toBe(201);
    expectDenied(
      await patchAs('alice', target, 'y', { env: [{ name: 'SANDBOXD_TOKEN', value: 'x' }] }),
      reserved,
    );
  });

  it('credentials.env may not name them either', async () => {
    const target = await namespace('credenv', {});
    expectDenied(
      await createSandboxAs(ns.kc, 'alice', target, 'x', {
        credentials: { env: [{ name: 'SANDBOXD_LISTEN', secretName: 's', key: 'k' }] },
      }),
      'invalid_request: spec.credentials.env[0].name: SANDBOXD_LISTEN is reserved: variables starting with SANDBOXD_ are settings of sandboxd, which the sandbox must not override',
    );
  });
});

describe('cloneFromSnapshot only for its owner', () => {
  /** A VolumeSnapshot as a clone of `source` (alice's) leaves it; `marked: false` for one made by hand. */
  async function snapshot(target: string, name: string, marked = true) {
    const marks = marked ? snapshotMarks('alice', { name: 'src', uid: 'uid-of-src' }) : {};
    await ns.custom.createNamespacedCustomObject({
      group: 'snapshot.storage.k8s.io',
      version: 'v1',
      namespace: target,
      plural: 'volumesnapshots',
      body: {
        apiVersion: 'snapshot.storage.k8s.io/v1',
        kind: 'VolumeSnapshot',
        metadata: { name, ...marks },
        spec: { source: { persistentVolumeClaimName: 'src-workspace' } },
      },
    });
  }

  it("a kubectl Sandbox naming alice's snapshot is denied for bob and admitted for alice", async () => {
    const target = await namespace('snap', {});
    await snapshot(target, 'src-snap-1');
    expectDenied(
      await createSandboxAs(ns.kc, 'bob', target, 'b', { cloneFromSnapshot: 'src-snap-1' }),
      `policy_violation: snapshot_not_allowed: VolumeSnapshot src-snap-1 is not bob's: only its owner may clone from it`,
    );
    const own = await createSandboxAs(ns.kc, 'alice', target, 'a', { cloneFromSnapshot: 'src-snap-1' });
    expect(own.status).toBe(201);
  });

  it('a snapshot without an owner, or none at all, is denied; the API ServiceAccount passes', async () => {
    const target = await namespace('snapx', {});
    await snapshot(target, 'by-hand', false);
    expectDenied(
      await createSandboxAs(ns.kc, 'alice', target, 'a', { cloneFromSnapshot: 'by-hand' }),
      `policy_violation: snapshot_not_allowed: VolumeSnapshot by-hand is not alice's: only its owner may clone from it`,
    );
    // A name a clone will take later (`<source>-snap-<unix-ts>`) cannot be claimed ahead.
    expectDenied(
      await createSandboxAs(ns.kc, 'alice', target, 'b', { cloneFromSnapshot: 'src-snap-9999999999' }),
      `policy_violation: snapshot_not_allowed: VolumeSnapshot src-snap-9999999999 does not exist in namespace ${target}`,
    );
    // The API writes clones for their callers and has checked them (owner or admin) itself.
    const byApi = await createSandboxAs(ns.kc, API_SA, target, 'c', {
      cloneFromSnapshot: 'by-hand',
      createdBy: 'bob',
    });
    expect(byApi.status).toBe(201);
  });

  it('setting cloneFromSnapshot by a patch is judged the same way', async () => {
    const target = await namespace('snapp', {});
    await snapshot(target, 'src-snap-2');
    expect((await createSandboxAs(ns.kc, 'bob', target, 'b')).status).toBe(201);
    expectDenied(
      await patchAs('bob', target, 'b', { cloneFromSnapshot: 'src-snap-2' }),
      `policy_violation: snapshot_not_allowed: VolumeSnapshot src-snap-2 is not bob's: only its owner may clone from it`,
    );
  });
});
