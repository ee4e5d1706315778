import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { GROUP, VERSION, type Sandbox } from '../../core/index.ts';
import { fromKube } from './kube-errors.ts';

const plural = 'sandboxes';

/** Writes to Sandbox objects; reads go through the SandboxCache. */
export class SandboxWriter {
  readonly #custom: CustomObjectsApi;

  constructor(kc: KubeConfig) {
    this.#custom = kc.makeApiClient(CustomObjectsApi);
  }

  async create(namespace: string, body: Omit<Sandbox, 'status'>): Promise<Sandbox> {
    try {
      return (await this.#custom.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace,
        plural,
        body,
      })) as Sandbox;
    } catch (err) {
      throw fromKube(err, `sandbox ${body.metadata.name}`);
    }
  }

  /** A direct read, for right after a write when the cache may not have caught up. */
  async read(namespace: string, name: string): Promise<Sandbox | undefined> {
    try {
      return (await this.#custom.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace,
        plural,
        name,
      })) as Sandbox;
    } catch (err) {
      if ((err as { code?: number }).code === 404) return undefined;
      throw err;
    }
  }

  async mergePatch(namespace: string, name: string, patch: object): Promise<Sandbox> {
    try {
      return (await this.#custom.patchNamespacedCustomObject(
        { group: GROUP, version: VERSION, namespace, plural, name, body: patch },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      )) as Sandbox;
    } catch (err) {
      throw fromKube(err, `sandbox ${name}`);
    }
  }

  /** A JSON Patch, for list edits that must not race (guarded by a `test` op). */
  async jsonPatch(namespace: string, name: string, ops: object[]): Promise<Sandbox> {
    try {
      return (await this.#custom.patchNamespacedCustomObject(
        { group: GROUP, version: VERSION, namespace, plural, name, body: ops },
        setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
      )) as Sandbox;
    } catch (err) {
      throw fromKube(err, `sandbox ${name}`);
    }
  }

  async delete(namespace: string, name: string): Promise<void> {
    try {
      await this.#custom.deleteNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace,
        plural,
        name,
      });
    } catch (err) {
      if ((err as { code?: number }).code === 404) return;
      throw fromKube(err, `sandbox ${name}`);
    }
  }
}
