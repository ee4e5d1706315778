import { randomBytes } from 'node:crypto';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, inject } from 'vitest';
import { GROUP, SandboxNamespaces, VERSION, type Sandbox } from '../../core/index.ts';
import { reuseConnections } from '../../kube/controller/index.ts';
import { eventually } from '../../stack/index.ts';

/** An admin KubeConfig for the run's control plane. */
export function adminKubeConfig(): KubeConfig {
  // As every component loads its KubeConfig (cmd/config.ts): one connection pool, kept alive.
  const kc = reuseConnections(new KubeConfig());
  kc.loadFromFile(inject('kubeconfigPath'));
  return kc;
}

export interface TestNamespace {
  /** Name of the namespace; valid once `beforeAll` has run. */
  readonly name: string;
  kc: KubeConfig;
  core: CoreV1Api;
  custom: CustomObjectsApi;
}

/**
 * A fresh namespace for the calling test file, created before its tests and deleted after.
 * Namespaces keep files independent while they share one control plane.
 */
export function useNamespace(prefix = 't'): TestNamespace {
  const kc = adminKubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  const state = { name: '' };
  beforeAll(async () => {
    state.name = `${prefix}-${randomBytes(4).toString('hex')}`;
    // Enabled for sandboxes, as an installer enables a namespace (docs/install.md).
    await core.createNamespace({
      body: {
        metadata: { name: state.name, labels: { [SandboxNamespaces.label]: SandboxNamespaces.enabled } },
      },
    });
  });
  afterAll(async () => {
    if (state.name) await core.deleteNamespace({ name: state.name });
  });
  return {
    get name() {
      return state.name;
    },
    kc,
    core,
    custom: kc.makeApiClient(CustomObjectsApi),
  };
}

/** Waits until the Sandbox `name` shows `phase`, read from the apiserver; resolves with it. */
export function waitForSandboxPhase(
  ns: TestNamespace,
  name: string,
  phase: string,
  timeoutMs = 90_000,
): Promise<Sandbox> {
  return eventually(
    async () =>
      (await ns.custom.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        plural: 'sandboxes',
        namespace: ns.name,
        name,
      })) as Sandbox,
    {
      timeoutMs,
      until: (s) => s.status?.phase === phase,
      show: (s) => s.status,
      describe: `${name} ${phase}`,
    },
  );
}
