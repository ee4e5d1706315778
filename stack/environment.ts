import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startControlPlane, type ControlPlane } from './controlplane.ts';
import { installCrds, readCrds } from './crds.ts';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Folder of etcd/kube-apiserver/kubectl: `SVC_KUBE_ASSETS`, else hack/kube's build (cached). */
export async function kubeAssets(): Promise<string> {
  if (process.env.SVC_KUBE_ASSETS) return process.env.SVC_KUBE_ASSETS;
  const { stdout } = await run('bash', [join(root, 'hack/kube/build.sh')], { maxBuffer: 1 << 24 });
  return stdout.trim().split('\n').at(-1)!;
}

/** Folder of the VolumeSnapshot CRDs from the pinned external-snapshotter module. */
export async function snapshotCrdDir(): Promise<string> {
  if (process.env.SVC_SNAPSHOT_CRDS) return process.env.SVC_SNAPSHOT_CRDS;
  const { stdout } = await run('bash', [join(root, 'hack/kube/crds.sh'), 'snapshot']);
  return stdout.trim().split('\n').at(-1)!;
}

export interface Environment extends ControlPlane {
  /** Stops the control plane and removes its data folder. */
  dispose(): Promise<void>;
}

/**
 * A throwaway control plane with svc's CRDs and the VolumeSnapshot CRDs installed, in a
 * fresh temporary folder: what the integration tests and benchmarks run against.
 */
export async function startEnvironment(opts: { withSnapshotCrds?: boolean } = {}): Promise<Environment> {
  const assetsDir = await kubeAssets();
  const crdDirs = [join(root, 'crds')];
  if (opts.withSnapshotCrds ?? true) crdDirs.push(await snapshotCrdDir());
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-test-cp-'));
  const cp = await startControlPlane({ assetsDir, dataDir }).catch(async (err: unknown) => {
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  });
  try {
    await installCrds(cp.kubeConfig, await readCrds(crdDirs));
  } catch (err) {
    await cp.stop();
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    ...cp,
    async dispose() {
      await cp.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
