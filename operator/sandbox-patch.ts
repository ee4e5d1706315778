import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { GROUP, VERSION, type Sandbox } from '../core/index.ts';
import { mergePatch } from '../kube/index.ts';

/**
 * How the operator writes to a Sandbox: JSON merge patches, of the object (annotations,
 * finalizers, spec) or of its status subresource. Each caller patches only the fields it
 * owns (the reconciler never `status.agentConfigure`, the agent configurer nothing else).
 */
export class SandboxPatcher {
  readonly #custom: CustomObjectsApi;

  constructor(kc: KubeConfig) {
    this.#custom = kc.makeApiClient(CustomObjectsApi);
  }

  /** Returns the Sandbox as the apiserver stored it. */
  async patch(sandbox: Sandbox, body: object): Promise<Sandbox> {
    return (await this.#custom.patchNamespacedCustomObject({ ...ref(sandbox), body }, mergePatch)) as Sandbox;
  }

  /** Returns the Sandbox as the apiserver stored it. */
  async patchStatus(sandbox: Sandbox, status: object): Promise<Sandbox> {
    return (await this.#custom.patchNamespacedCustomObjectStatus(
      { ...ref(sandbox), body: { status } },
      mergePatch,
    )) as Sandbox;
  }
}

const ref = (sandbox: Sandbox) => ({
  group: GROUP,
  version: VERSION,
  plural: 'sandboxes',
  namespace: sandbox.metadata.namespace!,
  name: sandbox.metadata.name!,
});
