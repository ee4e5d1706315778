// Governance of direct CR writes on a real cluster: `kubectl apply` of a Sandbox by a person
// (impersonated with --as by the run's admin, never the API's ServiceAccount) goes through the
// real apiserver to the chart's admission webhook, which counts it in the same quota ledger as
// the API and denies it past the namespace's policy with the spec's violation code.
//
// The policy caps a namespace of the test's own (labelled svc.io/sandboxes=enabled, as the
// chart labels its sandboxNamespaces): a cap on `default`, which the other files share and
// create in at the same time, would deny their creates too. The operator serves only the
// chart's namespaces, so these Sandboxes are admitted or denied and never run: admission is
// what is tested here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForbiddenError, NotFoundError, SvcClient } from '../clients/typescript/index.ts';
import { e2eEnv, sandboxName, svcClient } from './support/index.ts';
import { controlPlane, kubectl, kubectlOk } from './support/kube.ts';

const admin = svcClient('admin');
const ns = sandboxName('e2e-quota');
const users = { ann: 'e2e-ann', ben: 'e2e-ben', cat: 'e2e-cat' } as const;
/** The namespace's policy before the test (none: the namespace is fresh), put back after. */
let before: Awaited<ReturnType<typeof admin.getPolicies>>['namespaces'][string] | undefined;

/** `kubectl apply -f -` of Sandbox `name` as `user`, as a person with the YAML would. */
const apply = (user: string, name: string) =>
  kubectl(
    ['--as', user, '-n', ns, 'apply', '-f', '-'],
    `apiVersion: svc.io/v1alpha1
kind: Sandbox
metadata: { name: ${name} }
spec:
  templateRef: { name: default, kind: ClusterSandboxTemplate }
`,
  );

const denied = (code: string, detail: string) =>
  `Error from server (Forbidden): error when creating "STDIN": admission webhook "validate.sandboxes.svc.io" denied the request: policy_violation: ${code}: ${detail}\n`;

/** The Sandboxes in the namespace and who created each, `name:createdBy`, sorted. */
async function sandboxes(): Promise<string[]> {
  const out = await kubectlOk([
    '-n',
    ns,
    'get',
    'sandboxes',
    '-o',
    'jsonpath={range .items[*]}{.metadata.name}:{.spec.createdBy}{"\\n"}{end}',
  ]);
  return out.split('\n').filter(Boolean).sort();
}

beforeAll(async () => {
  await kubectlOk(
    ['apply', '-f', '-'],
    `apiVersion: v1
kind: Namespace
metadata:
  name: ${ns}
  labels: { svc.io/sandboxes: enabled }
---
# What a platform team grants a person who writes Sandboxes with kubectl or GitOps.
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: sandbox-writer, namespace: ${ns} }
rules:
  - apiGroups: [svc.io]
    resources: [sandboxes]
    verbs: [get, list, create, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: sandbox-writer, namespace: ${ns} }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: sandbox-writer }
subjects:
${Object.values(users)
  .map((u) => `  - { apiGroup: rbac.authorization.k8s.io, kind: User, name: ${u} }`)
  .join('\n')}
`,
  );
  before = (await admin.getPolicies()).namespaces?.[ns];
  await admin.setNamespacePolicy(ns, { maxSandboxesPerUser: 1, maxSandboxesTotal: 2 });
}, 120_000);

afterAll(async () => {
  // Restored even when a test failed: the policy, the namespace with its Sandboxes, and the
  // quota ledger the API and the webhook keep for it in the control plane's namespace.
  if (before) await admin.setNamespacePolicy(ns, before);
  else
    await admin.deleteNamespacePolicy(ns).catch((err: unknown) => {
      if (!(err instanceof NotFoundError)) throw err;
    });
  await kubectlOk(['delete', 'namespace', ns, '--ignore-not-found', '--timeout=120s']);
  await kubectlOk([
    '-n',
    controlPlane.namespace,
    'delete',
    'configmap',
    `svc-quota-ledger-${ns}`,
    '--ignore-not-found',
  ]);
}, 180_000);

describe('the admission webhook on a real cluster', () => {
  it('kubectl apply under the caps is admitted (createdBy the user); past maxSandboxesPerUser or maxSandboxesTotal it is denied with the violation', async () => {
    const a1 = await apply(users.ann, 'a1');
    expect(a1).toEqual({ code: 0, stdout: 'sandbox.svc.io/a1 created\n', stderr: '' });
    const a2 = await apply(users.ann, 'a2');
    expect(a2).toEqual({
      code: 1,
      stdout: '',
      stderr: denied(
        'user_quota_exceeded',
        'you have 1 sandboxes in the namespace; maxSandboxesPerUser is 1',
      ),
    });
    const b1 = await apply(users.ben, 'b1');
    expect(b1).toEqual({ code: 0, stdout: 'sandbox.svc.io/b1 created\n', stderr: '' });
    const c1 = await apply(users.cat, 'c1');
    expect(c1).toEqual({
      code: 1,
      stdout: '',
      stderr: denied('namespace_quota_exceeded', 'the namespace has 2 sandboxes; maxSandboxesTotal is 2'),
    });
    expect(await sandboxes()).toEqual([`a1:${users.ann}`, `b1:${users.ben}`]);
  });

  it('the API counts the same Sandboxes: its create is refused 403 policy_violation too', async () => {
    const alice = new SvcClient({ baseUrl: e2eEnv().baseUrl, apiKey: e2eEnv().keys.alice, namespace: ns });
    const err = await alice
      .createSandbox({ name: 'api-one', mode: 'code', templateRef: { name: 'default' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ForbiddenError);
    expect((err as ForbiddenError).status).toBe(403);
    expect((err as ForbiddenError).body).toEqual({
      error: 'policy_violation',
      violations: [
        {
          code: 'namespace_quota_exceeded',
          message: 'the namespace has 2 sandboxes; maxSandboxesTotal is 2',
        },
      ],
    });
  });

  it('a deleted Sandbox frees its slot: the user’s next apply is admitted', async () => {
    await kubectlOk(['--as', users.ann, '-n', ns, 'delete', 'sandbox', 'a1', '--timeout=60s']);
    const a2 = await apply(users.ann, 'a2');
    expect(a2).toEqual({ code: 0, stdout: 'sandbox.svc.io/a2 created\n', stderr: '' });
    expect(await sandboxes()).toEqual([`a2:${users.ann}`, `b1:${users.ben}`]);
  });
});
