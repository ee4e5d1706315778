// The operator and devnode in the bench's own process on a fresh control plane, with the
// namespace `bench`: what bench/devnode.ts (bench-create, bench-clone) and bench/scale.ts time.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { sandboxdLauncher, startDevnode } from '../devnode/index.ts';
import { startOperator, type RunningOperator } from '../operator/index.ts';
import { startEnvironment } from '../stack/index.ts';
import { benchOperatorSettings, closingOnce } from './support.ts';

export interface InProcess {
  kc: KubeConfig;
  core: CoreV1Api;
  custom: CustomObjectsApi;
  namespace: string;
  /** devnode's data directory (its volumes are under `volumes/`). */
  dataDir: string;
  operator: RunningOperator;
  close: () => Promise<void>;
}

export async function startInProcess(label: string): Promise<InProcess> {
  const root = join(import.meta.dirname, '..');
  const logger = pino({ level: process.env.BENCH_LOG ?? 'warn' });
  const env = await startEnvironment();
  const dataDir = await mkdtemp(join(tmpdir(), `svc-bench-${label}-`));
  const kc = env.kubeConfig;
  const core = kc.makeApiClient(CoreV1Api);
  const namespace = 'bench';
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  const devnode = await startDevnode({
    kc,
    logger,
    nodeName: 'devnode-bench',
    dataDir,
    namespace,
    sandboxdCommand: await sandboxdLauncher(root),
  });
  const operator = await startOperator({
    kc,
    logger,
    namespace,
    leaseNamespace: namespace,
    identity: 'bench',
    settings: benchOperatorSettings,
  });
  return {
    kc,
    core,
    custom: kc.makeApiClient(CustomObjectsApi),
    namespace,
    dataDir,
    operator,
    // devnode's stop unmounts its Pods' roots; each step runs even when one before failed.
    close: closingOnce(async () => {
      await operator.stop().catch((err: unknown) => console.error('operator stop:', err));
      await devnode.stop().catch((err: unknown) => console.error('devnode stop:', err));
      await env.dispose();
      await rm(dataDir, { recursive: true, force: true });
    }),
  };
}
