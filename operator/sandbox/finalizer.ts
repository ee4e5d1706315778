import type { Pass, StepResult } from './context.ts';

export const FINALIZER = 'svc.io/finalizer';

/**
 * Puts the finalizer on a new Sandbox, so its deletion waits for the cleanup. It is written
 * beside the first objects the sandbox owns rather than before them (one request less
 * between a create and its Pod); a Sandbox deleted in between leaves orphans, which the
 * reconcile of its key removes once it is gone (`removeOrphans`).
 */
export async function ensureFinalizer(pass: Pass): Promise<StepResult> {
  const { sandbox } = pass;
  if (sandbox.metadata.finalizers?.includes(FINALIZER)) return {};
  await pass.d.patcher.patch(sandbox, {
    metadata: {
      finalizers: [...(sandbox.metadata.finalizers ?? []), FINALIZER],
      resourceVersion: sandbox.metadata.resourceVersion,
    },
  });
  return {};
}
