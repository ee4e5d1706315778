// `svc devnode`: one machine as a Kubernetes node for dev and tests (see devnode/).
import { resolve } from 'node:path';
import { pino } from 'pino';
import { z } from 'zod';
import { sandboxdLauncher, startDevnode } from '../devnode/index.ts';
import { loadKubeConfig, parseConfig, rawConfig } from './config.ts';

const Config = z.object({
  kubeconfig: z.string().optional(),
  'node-name': z.string().default('devnode'),
  'data-dir': z.string().default('.dev/devnode'),
  'watch-namespace': z.string().optional(),
  'log-level': z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
});

export async function main(argv: string[]): Promise<number> {
  const config = parseConfig(Config, rawConfig(argv, Object.keys(Config.shape)), 'devnode');
  if (!config) return 2;
  const logger = pino({ level: config['log-level'], base: { component: 'devnode' } });
  const dataDir = resolve(config['data-dir']);
  const devnode = await startDevnode({
    kc: loadKubeConfig(config.kubeconfig),
    logger,
    nodeName: config['node-name'],
    dataDir,
    namespace: config['watch-namespace'] || undefined,
    sandboxdCommand: await sandboxdLauncher(resolve(import.meta.dirname, '..')),
  });
  await new Promise<void>((done) => {
    process.once('SIGTERM', done);
    process.once('SIGINT', done);
  });
  logger.info('devnode stopping: stopping its Pods');
  await devnode.stop();
  return 0;
}
