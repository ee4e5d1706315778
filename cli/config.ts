// Contexts: where sbx finds the API and which key it signs in with, kept in
// $XDG_CONFIG_HOME/sbx/config.yaml (~/.config/sbx/config.yaml), written 0600 because it
// holds API keys. SVC_BASE_URL, SVC_API_KEY and SVC_NAMESPACE override the current
// context field by field, so `source .dev/env` or a CI job needs no file at all.
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError, ExitCode } from './errors.ts';

export interface Context {
  name: string;
  server: string;
  apiKey?: string;
  namespace?: string;
}

export interface Config {
  currentContext?: string;
  contexts: Context[];
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'sbx', 'config.yaml');
}

export async function readConfig(path: string): Promise<Config> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { contexts: [] };
    throw err;
  }
  const { parse } = await import('yaml');
  const raw = (parse(text) ?? {}) as { 'current-context'?: unknown; contexts?: unknown };
  if (typeof raw !== 'object' || (raw.contexts !== undefined && !Array.isArray(raw.contexts))) {
    throw new CliError(`${path}: not an sbx config (expected a map with a contexts list)`);
  }
  const contexts = ((raw.contexts as unknown[] | undefined) ?? []).flatMap((c): Context[] => {
    if (typeof c !== 'object' || c === null) return [];
    const { name, server, apiKey, namespace } = c as Record<string, unknown>;
    if (typeof name !== 'string' || typeof server !== 'string') return [];
    return [
      {
        name,
        server,
        ...(typeof apiKey === 'string' ? { apiKey } : {}),
        ...(typeof namespace === 'string' ? { namespace } : {}),
      },
    ];
  });
  const current = raw['current-context'];
  return { contexts, ...(typeof current === 'string' ? { currentContext: current } : {}) };
}

export async function writeConfig(path: string, config: Config): Promise<void> {
  const { stringify } = await import('yaml');
  const doc = {
    ...(config.currentContext ? { 'current-context': config.currentContext } : {}),
    contexts: config.contexts,
  };
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // A temporary file and a rename: a crash never leaves half a config.
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, stringify(doc), { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, path);
}

/** Where calls go: the named or current context with the environment's overrides. */
export interface Target {
  server: string;
  apiKey?: string;
  namespace?: string;
  context?: string;
}

export function resolveTarget(
  config: Config,
  opts: { context?: string; namespace?: string },
  env: NodeJS.ProcessEnv = process.env,
): Target {
  const name = opts.context ?? config.currentContext;
  const ctx = name === undefined ? undefined : config.contexts.find((c) => c.name === name);
  if (opts.context !== undefined && ctx === undefined) {
    throw new CliError(`no context named "${opts.context}" (sbx context ls lists them)`, ExitCode.usage);
  }
  const server = nonEmpty(env.SVC_BASE_URL) ?? ctx?.server;
  if (server === undefined) {
    throw new CliError(
      'not signed in: run `sbx login URL --api-key KEY` (or set SVC_BASE_URL and SVC_API_KEY)',
      ExitCode.auth,
    );
  }
  const apiKey = nonEmpty(env.SVC_API_KEY) ?? ctx?.apiKey;
  const namespace = opts.namespace ?? nonEmpty(env.SVC_NAMESPACE) ?? ctx?.namespace;
  return {
    server,
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(ctx ? { context: ctx.name } : {}),
  };
}

const nonEmpty = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);
