// The client a command uses: the config file's context, the global flags and the
// environment's overrides, resolved once per run.
import type { SvcClient } from '../clients/typescript/index.ts';
import { configPath, readConfig, resolveTarget, type Target } from './config.ts';

/** The options every command inherits from `sbx` itself. */
export interface GlobalOptions {
  context?: string;
  namespace?: string;
}

export interface Session {
  client: SvcClient;
  target: Target;
}

export async function openSession(globals: GlobalOptions): Promise<Session> {
  const target = resolveTarget(await readConfig(configPath()), globals);
  const { SvcClient } = await import('../clients/typescript/index.ts');
  const client = new SvcClient({
    baseUrl: target.server,
    ...(target.apiKey !== undefined ? { apiKey: target.apiKey } : {}),
    ...(target.namespace !== undefined ? { namespace: target.namespace } : {}),
    // A busy sandbox's 429 is waited out rather than shown (Retry-After, a few times).
    retry: { maxAttempts: 4, maxDelaySeconds: 10 },
  });
  return { client, target };
}
