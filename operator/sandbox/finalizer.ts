import { SANDBOX_FINALIZER, type Sandbox } from '../../core/index.ts';
import type { Pass } from './context.ts';

/**
 * Puts the finalizer on a new Sandbox before anything it owns exists, so its deletion
 * always waits for the cleanup (one the API created already has it). The pass goes on with
 * the patched object (its resourceVersion), rather than waiting for the watch to bring it back.
 */
export async function addFinalizer(pass: Pass): Promise<Sandbox> {
  const { sandbox } = pass;
  if (sandbox.metadata.finalizers?.includes(SANDBOX_FINALIZER)) return sandbox;
  return pass.d.patcher.patch(sandbox, {
    metadata: {
      finalizers: [...(sandbox.metadata.finalizers ?? []), SANDBOX_FINALIZER],
      resourceVersion: sandbox.metadata.resourceVersion,
    },
  });
}
