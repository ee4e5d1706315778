import type { CoreV1Api } from '@kubernetes/client-node';
import { GROUP, VERSION } from '../../core/index.ts';
import type { Pass } from './context.ts';

/**
 * A Kubernetes Event on the Sandbox (what `kubectl describe` shows). A failed write is
 * logged and dropped: an event never fails the pass that records it.
 */
export function eventRecorder(core: CoreV1Api, now: () => Date) {
  return async (pass: Pass, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> => {
    const { namespace, name } = pass;
    const uid = pass.sandbox.metadata.uid;
    const at = now();
    await core
      .createNamespacedEvent({
        namespace,
        body: {
          metadata: { generateName: `${name}.`, namespace },
          involvedObject: { apiVersion: `${GROUP}/${VERSION}`, kind: 'Sandbox', name, namespace, uid },
          reason,
          message,
          type,
          source: { component: 'svc-operator' },
          reportingComponent: 'svc-operator',
          reportingInstance: 'svc-operator',
          firstTimestamp: at,
          lastTimestamp: at,
          count: 1,
        },
      })
      .catch((err: unknown) => pass.log.warn({ err: (err as Error).message, reason }, 'event not recorded'));
  };
}
