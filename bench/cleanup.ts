// A bench's sandboxes removed before what they depend on. A sandbox whose template went
// first ends `Error` `TemplateNotFound` and stays (bench-peer, interrupted, left two so: its
// clean-up deleted the templates while the sandboxes were still going). So every bench's
// clean-up removes its sandboxes and waits until they and their Pods are gone, and only then
// its pools and templates; and since a create may still be in flight when the bench is
// stopped (Ctrl-C in the middle of a burst), each pass deletes whatever of the bench's it
// finds, not only what it knew of when it started.
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { GROUP, Labels, VERSION, WarmPool, type Sandbox } from '../core/index.ts';
import { eventually } from '../stack/index.ts';

/** The templates' names a sandbox of the bench was made from (or a test on any sandbox). */
export type Ours = (s: Sandbox) => boolean;

export const fromTemplates =
  (...names: string[]): Ours =>
  (s) =>
    names.includes(s.spec?.templateRef?.name ?? '');

/**
 * Deletes the bench's sandboxes in `namespace` (those `ours` picks) until none is left and no
 * Pod of them either. Throws, naming what is left, after `timeoutMs`.
 */
export async function removeSandboxes(
  kc: KubeConfig,
  namespace: string,
  ours: Ours,
  timeoutMs = 300_000,
): Promise<void> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const core = kc.makeApiClient(CoreV1Api);
  const ref = { group: GROUP, version: VERSION, namespace, plural: 'sandboxes' };
  const names = new Set<string>();
  let left: string[] = [];
  await eventually(
    async () => {
      const list = (await custom.listNamespacedCustomObject(ref)) as { items: Sandbox[] };
      const mine = list.items.filter(ours);
      for (const s of mine) names.add(s.metadata.name!);
      await Promise.all(
        mine
          .filter((s) => !s.metadata.deletionTimestamp)
          .map((s) =>
            custom.deleteNamespacedCustomObject({ ...ref, name: s.metadata.name! }).catch(() => undefined),
          ),
      );
      const pods = await core.listNamespacedPod({ namespace, labelSelector: Labels.sandbox });
      left = [
        ...mine.map((s) => `sandbox ${s.metadata.name}`),
        ...pods.items
          .filter((p) => names.has(p.metadata?.labels?.[Labels.sandbox] ?? ''))
          .map((p) => `pod ${p.metadata?.name}`),
      ];
      return left.length === 0;
    },
    {
      timeoutMs,
      intervalMs: 500,
      describe: () => `the bench's sandboxes in ${namespace} never went: ${left.join(', ')}`,
    },
  );
}

/**
 * Deletes a warm pool and waits until its members' Pods are gone (`timeoutMs` 0: does not
 * wait, where no garbage collector removes them, as on devnode's control plane).
 */
export async function removePool(
  kc: KubeConfig,
  namespace: string,
  name: string,
  timeoutMs = 300_000,
): Promise<void> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const core = kc.makeApiClient(CoreV1Api);
  await custom
    .deleteNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: 'sandboxwarmpools',
      name,
    })
    .catch(() => undefined);
  if (timeoutMs === 0) return;
  await eventually(
    async () =>
      (await core.listNamespacedPod({ namespace, labelSelector: `${WarmPool.poolLabel}=${name}` })).items
        .length === 0,
    { timeoutMs, intervalMs: 500, describe: () => `warm pool ${name}'s Pods in ${namespace} never went` },
  );
}

/** Deletes ClusterSandboxTemplates (once nothing is made from them any more). */
export async function removeTemplates(kc: KubeConfig, names: string[]): Promise<void> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  for (const name of names)
    await custom
      .deleteClusterCustomObject({ group: GROUP, version: VERSION, plural: 'clustersandboxtemplates', name })
      .catch(() => undefined);
}

/**
 * A flag the bench's creates check: once its clean-up began (a signal while the bench still
 * runs), a create throws instead of making a sandbox the clean-up may have already passed.
 */
export class Stopping {
  #stopped = false;

  stop(): void {
    this.#stopped = true;
  }

  /** Throws once the clean-up began. */
  check(): void {
    if (this.#stopped) throw new Error('the bench is stopping');
  }
}

/**
 * What a bench does on every way out when a clean-up pass failed (its sandboxes would not
 * go, say): says why and what it `left`, and makes the run end with exit code 1, since a run
 * that could not clean up must not look like a clean one. For `.catch` or a rejected result.
 */
export function cleanupFailed(left?: string): (err: unknown) => void {
  return (err) => {
    console.error(cleanupMessage(err, left));
    process.exitCode = 1;
  };
}

/** The line said for a failed clean-up pass: its error's message, then what was left. */
export function cleanupMessage(err: unknown, left?: string): string {
  const why = err instanceof Error ? err.message : String(err);
  return left ? `${why}; ${left}` : why;
}
