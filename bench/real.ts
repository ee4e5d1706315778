// The benches' real cluster (make bench-… CLUSTER=real): a hack/cluster run with svc installed
// by its own chart, through the bring-up module the e2e tier uses too (hack/cluster/bringup).
//
//   SVC_E2E_STATE=STATE   use that run (up.sh's state folder) and leave it up; unset: bring
//                         one up (NODES) and take it down on every way out
//   SVC_E2E_IMAGES=0      skip hack/cluster/images.sh (the images are there already)
//   SVC_E2E_INSTALL=0     skip hack/cluster/install.sh (svc is installed, STATE/svc.env says where)
import { KubeConfig } from '@kubernetes/client-node';
import { BringUp, type ClusterEnv } from '../hack/cluster/bringup/index.ts';
import { closingOnce } from './support.ts';

export { script } from '../hack/cluster/bringup/index.ts';

export interface RealCluster {
  state: string;
  /** The installed svc: its API's URL and keys (STATE/svc.env). */
  env: ClusterEnv;
  /** Admin access through 127.0.0.1 (STATE/host.kubeconfig), for what a client cannot do. */
  kc: KubeConfig;
  /** The run's node names (n1, n2, …) and their network namespaces' prefix. */
  nodes: string[];
  run: string;
  /**
   * Adds a step `close` runs before the cluster goes (the bench's own objects); they run last
   * added first, each after the one before it ended.
   */
  beforeClose(step: () => Promise<void>): void;
  /**
   * The bench's steps, then down.sh for a cluster the bench brought up (a given one stays);
   * once, whoever asks first: the bench's end, a failed step, SIGINT or SIGTERM.
   */
  close(): Promise<void>;
}

/** The cluster (given, or brought up with `nodes` nodes), imaged and installed. */
export async function startRealCluster(nodes: number): Promise<RealCluster> {
  const bringUp = new BringUp({ nodes, say: (line) => process.stderr.write(`bench: ${line}\n`) });
  const steps: (() => Promise<void>)[] = [];
  // From here every way out takes down what the bench brought up: its end, a signal (during
  // the bring-up too), a failed step.
  const close = closingOnce(async () => {
    for (const step of steps.reverse()) await step().catch((err: unknown) => console.error(err));
    await bringUp.down();
  });
  try {
    const { state, env, run, nodes: names } = await bringUp.up();
    const kc = new KubeConfig();
    kc.loadFromFile(env.kubeconfig);
    process.stderr.write(`bench: nodes ${names.join(', ')}\n`);
    return { state, env, kc, nodes: names, run, beforeClose: (step) => steps.push(step), close };
  } catch (err) {
    await close();
    throw err;
  }
}
