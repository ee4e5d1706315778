// `svc sandboxd [flags] [-- template command…]`: the in-sandbox daemon. Configuration comes
// from flags or SANDBOXD_* variables (the operator sets these on the sandbox container).
import { readFile, rm } from 'node:fs/promises';
import { z } from 'zod';
import { createSandboxd, startTemplateProcess, stopProcess } from '../sandboxd/index.ts';
import { parseConfig } from './config.ts';
import { parseArgs } from 'node:util';

const Config = z
  .object({
    listen: z.string().default('0.0.0.0:9000'),
    'token-file': z.string().optional(),
    token: z.string().optional(),
    workspace: z.string().default('/workspace'),
    'grace-seconds': z.coerce.number().positive().default(10),
    'keepalive-seconds': z.coerce.number().positive().default(15),
    'max-concurrent-invokes': z.coerce.number().int().min(1).default(1),
  })
  .refine((c) => c.token || c['token-file'], {
    message: 'a token is required: --token-file or SANDBOXD_TOKEN_FILE',
    path: ['token-file'],
  });

export async function main(argv: string[]): Promise<number> {
  const split = argv.indexOf('--');
  const flags = split < 0 ? argv : argv.slice(0, split);
  const command = split < 0 ? [] : argv.slice(split + 1);
  const names = Object.keys(Config.shape);
  const { values } = parseArgs({
    args: flags,
    options: Object.fromEntries(names.map((n) => [n, { type: 'string' as const }])),
    strict: true,
  });
  const raw = Object.fromEntries(
    names.map((n) => [n, values[n] ?? process.env[`SANDBOXD_${n.replaceAll('-', '_').toUpperCase()}`]]),
  );
  const config = parseConfig(Config, raw, 'sandboxd');
  if (!config) return 2;
  const token = config.token ?? (await readFile(config['token-file']!, 'utf8')).trim();
  const baseEnv = runEnvironment(process.env);
  const { server, runs } = createSandboxd({
    token,
    workspace: config.workspace,
    graceMs: config['grace-seconds'] * 1000,
    keepaliveMs: config['keepalive-seconds'] * 1000,
    maxConcurrentInvokes: config['max-concurrent-invokes'],
    baseEnv,
  });
  const listen = config.listen;
  if (listen.startsWith('unix:')) {
    const path = listen.slice('unix:'.length);
    await rm(path, { force: true });
    await new Promise<void>((resolve) => server.listen(path, resolve));
  } else {
    const i = listen.lastIndexOf(':');
    await new Promise<void>((resolve) =>
      server.listen(Number(listen.slice(i + 1)), listen.slice(0, i) || '0.0.0.0', resolve),
    );
  }
  process.stderr.write(`sandboxd listening on ${listen}\n`);
  const template = startTemplateProcess(command, { cwd: config.workspace, env: baseEnv });

  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  // Shutdown: stop taking requests, then SIGTERM every child, SIGKILL after the grace.
  server.close();
  await Promise.all([runs.shutdown(), stopProcess(template, config['grace-seconds'] * 1000)]);
  return 0;
}

/** The container's environment for runs: sandboxd's own settings (the token) stay out. */
export function runEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !k.startsWith('SANDBOXD_')) out[k] = v;
  return out;
}
