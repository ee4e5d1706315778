import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';

/**
 * A Pod's volumes as host folders: emptyDir and Secret/ConfigMap volumes under the Pod's
 * folder (Secret files with their mode), claims at their PV's path. Returns name → host path.
 */
export async function materializeVolumes(
  pod: V1Pod,
  podDir: string,
  core: CoreV1Api,
): Promise<Map<string, string>> {
  const namespace = pod.metadata!.namespace!;
  const out = new Map<string, string>();
  for (const v of pod.spec?.volumes ?? []) {
    const dir = join(podDir, 'volumes', v.name);
    if (v.persistentVolumeClaim) {
      const claim = await core.readNamespacedPersistentVolumeClaim({
        name: v.persistentVolumeClaim.claimName,
        namespace,
      });
      const pvName = claim.spec?.volumeName;
      if (claim.status?.phase !== 'Bound' || !pvName)
        throw new Error(`claim ${v.persistentVolumeClaim.claimName} is not bound`);
      const pv = await core.readPersistentVolume({ name: pvName });
      const path = pv.spec?.hostPath?.path;
      if (!path) throw new Error(`volume ${pvName} has no host path devnode can mount`);
      out.set(v.name, path);
    } else if (v.secret || v.configMap) {
      await mkdir(dir, { recursive: true });
      const entries = v.secret
        ? Object.entries(
            (await core.readNamespacedSecret({ name: v.secret.secretName!, namespace })).data ?? {},
          ).map(([k, b64]) => [k, Buffer.from(b64, 'base64')] as const)
        : Object.entries(
            (await core.readNamespacedConfigMap({ name: v.configMap!.name!, namespace })).data ?? {},
          ).map(([k, text]) => [k, Buffer.from(text)] as const);
      const mode = (v.secret?.defaultMode ?? v.configMap?.defaultMode ?? 0o644) & 0o777;
      for (const [key, bytes] of entries) {
        await writeFile(join(dir, key), bytes, { mode });
        await chmod(join(dir, key), mode);
      }
      out.set(v.name, dir);
    } else {
      // emptyDir, and anything else devnode does not model, is a fresh folder.
      await mkdir(dir, { recursive: true });
      out.set(v.name, dir);
    }
  }
  return out;
}
