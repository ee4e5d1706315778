import { z } from 'zod';
import { NamespaceName, SandboxName } from '../../core/index.ts';

/** The sandbox a tool acts on, as every sandbox route of the API names it. */
export const Target = {
  sandbox: SandboxName.describe('The sandbox’s name (its id)'),
  namespace: NamespaceName.optional().describe('Its namespace (default: the API’s, or the sbx context’s)'),
};

/** Only the namespace, for the calls that name no sandbox. */
export const InNamespace = { namespace: Target.namespace };

/** `?namespace=` of a call, when the tool was given one. */
export const nsQuery = (args: { namespace?: string | undefined }) => ({ namespace: args.namespace });

/** Waits `ms`, or less when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

export const WaitSeconds = z.int().min(1).max(3600);
