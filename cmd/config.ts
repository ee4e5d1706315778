import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { z } from 'zod';
import { reuseConnections } from '../kube/index.ts';

/**
 * Reads `--flag value` pairs, falling back to `SVC_<FLAG>` environment variables, into a
 * plain record for a component's zod schema. Flags win over the environment.
 */
export function rawConfig(argv: string[], flags: string[]): Record<string, string | undefined> {
  const { values } = parseArgs({
    args: argv,
    options: Object.fromEntries(flags.map((f) => [f, { type: 'string' as const }])),
    strict: true,
  });
  const env = (flag: string) => process.env[`SVC_${flag.replace(/[-.]/g, '_').toUpperCase()}`];
  return Object.fromEntries(flags.map((f) => [f, values[f] ?? env(f)]));
}

/** Parses configuration or prints every problem and returns undefined. */
export function parseConfig<T extends z.ZodType>(
  schema: T,
  raw: unknown,
  component: string,
): z.infer<T> | undefined {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    process.stderr.write(`svc ${component}: --${issue.path.join('.')}: ${issue.message}\n`);
  }
  return undefined;
}

/** `--kubeconfig` when given, else the usual discovery (in-cluster, then ~/.kube/config). */
export function loadKubeConfig(path: string | undefined): KubeConfig {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromDefault();
  return reuseConnections(kc);
}

export const booleanFlag = z
  .enum(['true', 'false', '1', '0'])
  .optional()
  .transform((v) => v === 'true' || v === '1');

/** `host:port` → parts; a bare port listens on 127.0.0.1. */
export const listenAddress = z
  .string()
  .regex(/^([^:]*:)?\d{1,5}$/, 'must be host:port or port')
  .transform((v) => {
    const i = v.lastIndexOf(':');
    return i < 0
      ? { host: '127.0.0.1', port: Number(v) }
      : { host: v.slice(0, i) || '0.0.0.0', port: Number(v.slice(i + 1)) };
  });

/**
 * `--sandbox-namespaces`: namespace names, comma-separated, the chart's `sandboxNamespaces`
 * (where a component is granted what it watches). Unset or `*`: undefined, every namespace,
 * which needs cluster-wide rights.
 */
export const sandboxNamespaces = z
  .string()
  .optional()
  .transform((s) =>
    s === undefined || s.trim() === '*'
      ? undefined
      : s
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean),
  )
  .pipe(
    z
      .array(
        z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be namespace names, comma-separated, or *'),
      )
      .optional(),
  );
