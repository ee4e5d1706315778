import { cpus, hostname, release, totalmem } from 'node:os';
import { CoreV1Api, type KubeConfig, type V1NodeCondition } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { isStatus, mergePatch } from '../../kube/index.ts';

const HEARTBEAT_MS = 10_000;

/**
 * Registers the Node devnode plays and keeps its Ready condition fresh, as kubelet's node
 * status loop does. Capacity is the machine's: its CPUs, memory and a pod count.
 */
export async function registerNode(opts: {
  kc: KubeConfig;
  name: string;
  logger: Logger;
}): Promise<{ stop(): Promise<void> }> {
  const core = opts.kc.makeApiClient(CoreV1Api);
  const labels = {
    'kubernetes.io/hostname': opts.name,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': process.arch === 'x64' ? 'amd64' : process.arch,
    'devnode.svc.io/node': 'true',
  };
  try {
    await core.createNode({ body: { metadata: { name: opts.name, labels }, spec: {} } });
  } catch (err) {
    if (!isStatus(err, 409)) throw err;
  }
  const capacity = {
    cpu: String(cpus().length),
    memory: `${Math.floor(totalmem() / 1024)}Ki`,
    pods: '110',
  };
  const beat = async () => {
    const now = new Date().toISOString();
    const ready: V1NodeCondition = {
      type: 'Ready',
      status: 'True',
      reason: 'KubeletReady',
      message: 'devnode is posting ready status',
      lastHeartbeatTime: now as never,
      lastTransitionTime: now as never,
    };
    await core.patchNodeStatus(
      {
        name: opts.name,
        body: {
          status: {
            capacity,
            allocatable: capacity,
            conditions: [ready],
            addresses: [
              { type: 'InternalIP', address: '127.0.0.1' },
              { type: 'Hostname', address: hostname() },
            ],
            nodeInfo: {
              architecture: labels['kubernetes.io/arch'],
              operatingSystem: 'linux',
              kernelVersion: release(),
              osImage: 'devnode (host filesystem)',
              containerRuntimeVersion: 'devnode://bubblewrap',
              kubeletVersion: 'devnode',
              kubeProxyVersion: 'devnode',
              machineID: '',
              systemUUID: '',
              bootID: '',
            },
          },
        },
      },
      mergePatch,
    );
  };
  await beat();
  const timer = setInterval(() => {
    beat().catch((err: unknown) => opts.logger.warn({ err }, 'node heartbeat failed'));
  }, HEARTBEAT_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      return Promise.resolve();
    },
  };
}
