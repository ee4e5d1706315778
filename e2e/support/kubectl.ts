import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { e2eEnv } from './cluster.ts';

/**
 * `STATE/kubectl ARGS…` (kubectl in the control plane's network namespace, as the cluster's
 * admin); its stdout. For checks, and for what a platform team does with kubectl (a warm pool,
 * a template, an exec into a Pod to probe from there), never for what the API should do.
 */
export async function kubectl(args: string[], opts: { timeoutMs?: number } = {}): Promise<string> {
  const { stdout } = await promisify(execFile)(join(e2eEnv().state, 'kubectl'), args, {
    maxBuffer: 16 * 1024 * 1024,
    timeout: opts.timeoutMs ?? 60_000,
  });
  return stdout;
}
