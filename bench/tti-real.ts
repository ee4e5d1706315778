// bench-tti's real side: a cluster of hack/cluster with svc installed by its chart, as the e2e
// tier stands it up (bench/real.ts: SVC_E2E_STATE=STATE uses a running one and leaves it up;
// unset, one is brought up with NODES nodes, default 1, and taken down on every way out).
import { join } from 'node:path';
import { SvcClient } from '../clients/typescript/index.ts';
import { startRealCluster } from './real.ts';
import type { Side } from './tti.ts';

export async function realCluster(): Promise<Side> {
  const cluster = await startRealCluster(Number(process.env.NODES ?? 1));
  const { env, kc, state, nodes } = cluster;
  return {
    cluster: 'real',
    client: new SvcClient({ baseUrl: env.baseUrl, apiKey: env.keys.admin, namespace: env.namespace }),
    kc,
    namespace: env.namespace,
    // The first node's containerd is the one traced.
    containerd: join(state, nodes[0] ?? 'n1', 'containerd.sock'),
    beforeClose: (step) => cluster.beforeClose(step),
    close: () => cluster.close(),
  };
}
