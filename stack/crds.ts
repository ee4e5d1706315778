import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  loadAllYaml,
  PatchStrategy,
  type KubeConfig,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { eventually } from './eventually.ts';

/** Reads every CustomResourceDefinition from the YAML files of `dirs` (other kinds skipped). */
export async function readCrds(dirs: string[]): Promise<V1CustomResourceDefinition[]> {
  const crds: V1CustomResourceDefinition[] = [];
  for (const dir of dirs) {
    for (const file of (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort()) {
      // loadAllYaml maps wire keys (`x-kubernetes-int-or-string`) onto client-node's model
      // keys; a plain YAML parse would have them dropped by the client's serializer.
      for (const obj of loadAllYaml(
        await readFile(join(dir, file), 'utf8'),
      ) as (V1CustomResourceDefinition | null)[]) {
        if (obj?.kind === 'CustomResourceDefinition') crds.push(obj);
      }
    }
  }
  return crds;
}

/** Server-side applies the CRDs and waits until each one is Established. */
export async function installCrds(kc: KubeConfig, crds: V1CustomResourceDefinition[]): Promise<void> {
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const ext = kc.makeApiClient(ApiextensionsV1Api);
  for (const crd of crds) {
    await objects.patch(crd, undefined, undefined, 'svc-harness', true, PatchStrategy.ServerSideApply);
  }
  for (const crd of crds) {
    const name = crd.metadata!.name!;
    await eventually(
      async () => {
        const current = await ext.readCustomResourceDefinition({ name });
        return (
          current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false
        );
      },
      { timeoutMs: 30_000, describe: () => `CRD ${name} not Established` },
    );
    // Established comes a moment before the resource's storage is ready to serve (the
    // apiserver answers 429 "storage is (re)initializing" until then).
    const version = crd.spec.versions.find((v) => v.storage)?.name ?? crd.spec.versions[0]!.name;
    const custom = kc.makeApiClient(CustomObjectsApi);
    await eventually(
      async () => {
        await custom.listClusterCustomObject({
          group: crd.spec.group,
          version,
          plural: crd.spec.names.plural,
          limit: 1,
        });
        return true;
      },
      { timeoutMs: 30_000, describe: () => `CRD ${name} does not serve lists` },
    );
  }
}
