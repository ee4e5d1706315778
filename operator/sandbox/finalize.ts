import { SANDBOX_FINALIZER, sandboxObjectsName } from '../../core/index.ts';
import type { Pass } from './context.ts';
import { Pod, mine, removeOwned } from './owned.ts';

/** How soon a deleted sandbox whose Pod is still stopping is looked at again. */
const POD_GONE_RECHECK_MS = 500;

/**
 * Deletion: what the Sandbox owns goes (the owned-kinds table, Pod first; only objects whose
 * controller reference is its uid, never another's of the same name), then the finalizer,
 * but only once its Pod has stopped, so nothing of it runs on unseen.
 */
export async function finalize(pass: Pass): Promise<number | void> {
  const { sandbox } = pass;
  if (!sandbox.metadata.finalizers?.includes(SANDBOX_FINALIZER)) return;
  await removeOwned(pass);
  if (mine(pass, Pod, sandboxObjectsName(sandbox))) return POD_GONE_RECHECK_MS;
  await pass.d.patcher.patch(sandbox, {
    metadata: {
      finalizers: (sandbox.metadata.finalizers ?? []).filter((f) => f !== SANDBOX_FINALIZER),
      resourceVersion: sandbox.metadata.resourceVersion,
    },
  });
  pass.log.info('sandbox deleted');
}
