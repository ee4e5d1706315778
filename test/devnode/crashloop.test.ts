// A container that keeps crashing, on devnode against the real control plane: between its
// restarts it is reported as a kubelet reports it (waiting, CrashLoopBackOff, the back-off
// message, the last run's exit code), not as a container that never started.
import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { expect, test } from 'vitest';
import { eventually } from '../../stack/index.ts';
import { useDevnode, useNamespace } from '../support/index.ts';

const ns = useNamespace('crashloop');
useDevnode(ns);

test('a crashing container waits in CrashLoopBackOff with the back-off message and its last exit', async () => {
  const body: V1Pod = {
    metadata: { name: 'crashes' },
    spec: {
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'main', image: 'debian', command: ['sh', '-c', 'exit 3'] }],
    },
  };
  const made = await ns.core.createNamespacedPod({ namespace: ns.name, body });
  let status: V1ContainerStatus | undefined;
  try {
    await eventually(
      async () => {
        const pod = await ns.core.readNamespacedPod({ name: 'crashes', namespace: ns.name });
        status = pod.status?.containerStatuses?.[0];
        return !!status?.state?.waiting && (status.lastState?.terminated?.exitCode ?? 0) !== 0;
      },
      { timeoutMs: 30_000, describe: () => `crashes waiting after a crash: ${JSON.stringify(status)}` },
    );
    const { reason, message } = status!.state!.waiting!;
    expect(reason).toBe('CrashLoopBackOff');
    expect(message).toMatch(
      new RegExp(
        `^back-off (1|2|4|8|16|30)s restarting failed container=main pod=crashes_${ns.name}\\(${made.metadata!.uid}\\)$`,
      ),
    );
    expect(status!.lastState!.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
    expect(status).toMatchObject({ ready: false, started: false });
  } finally {
    await ns.core.deleteNamespacedPod({ name: 'crashes', namespace: ns.name });
    await eventually(
      () =>
        ns.core.readNamespacedPod({ name: 'crashes', namespace: ns.name }).then(
          () => false,
          () => true,
        ),
      { timeoutMs: 30_000, describe: () => 'pod crashes gone' },
    );
  }
}, 90_000);
