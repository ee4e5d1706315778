// policy get|set and audit: the admin's commands.
import { readFile } from 'node:fs/promises';
import { CliError, ExitCode } from '../errors.ts';
import type { Invocation } from '../main.ts';
import { age, parseFormat, printAs, serialize } from '../output.ts';
import { openSession } from '../session.ts';

export async function policyGet(
  inv: Invocation<{ output: 'yaml' | 'json'; effective?: boolean }>,
): Promise<number> {
  const { client } = await openSession(inv.globals);
  const ns = inv.globals.namespace;
  let value: unknown;
  if (inv.opts.effective) {
    if (!ns) throw new CliError('--effective needs -n NAMESPACE', ExitCode.usage);
    value = await client.getEffectivePolicy({ namespace: ns });
  } else {
    const stored = await client.getPolicies();
    if (ns === undefined) value = stored;
    else {
      const p = stored.namespaces[ns];
      if (p === undefined) throw new CliError(`namespace ${ns} has no policy of its own`);
      value = p;
    }
  }
  process.stdout.write(await serialize(value, inv.opts.output));
  return ExitCode.ok;
}

export async function policySet(inv: Invocation<{ file: string }>): Promise<number> {
  const text = inv.opts.file === '-' ? await readStdin() : await readFile(inv.opts.file, 'utf8');
  const { parse } = await import('yaml');
  let policy: unknown;
  try {
    policy = parse(text);
  } catch (err) {
    throw new CliError(
      `${inv.opts.file}: not YAML: ${(err as Error).message.split('\n')[0]}`,
      ExitCode.usage,
    );
  }
  if (typeof policy !== 'object' || policy === null || Array.isArray(policy)) {
    throw new CliError(`${inv.opts.file}: a policy is a map (maxSandboxesPerUser: 3, …)`, ExitCode.usage);
  }
  const { client } = await openSession(inv.globals);
  const ns = inv.globals.namespace;
  const body = policy as Parameters<typeof client.setClusterPolicy>[0];
  const saved =
    ns === undefined ? await client.setClusterPolicy(body) : await client.setNamespacePolicy(ns, body);
  process.stderr.write(`policy of ${ns === undefined ? 'the cluster' : `namespace ${ns}`} saved\n`);
  process.stdout.write(await serialize(saved, 'yaml'));
  return ExitCode.ok;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** `--since`: an RFC 3339 time as it is, or a duration (90s, 15m, 2h, 7d) before now. */
export function sinceTime(value: string, now: number = Date.now()): string {
  const m = /^(\d+)(s|m|h|d)$/.exec(value);
  if (m) {
    const unit = { s: 1, m: 60, h: 3600, d: 86400 }[m[2] as 's' | 'm' | 'h' | 'd'];
    return new Date(now - Number(m[1]) * unit * 1000).toISOString();
  }
  if (Number.isNaN(Date.parse(value))) {
    throw new CliError(
      `--since wants a time (2026-01-02T15:04:05Z) or a duration (1h), not "${value}"`,
      ExitCode.usage,
    );
  }
  return value;
}

export async function audit(
  inv: Invocation<{ sandbox?: string; since?: string; reason?: string; limit?: string; output?: string }>,
): Promise<number> {
  const { client } = await openSession(inv.globals);
  const o = inv.opts;
  const limit = o.limit === undefined ? undefined : Number(o.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit <= 0)) {
    throw new CliError('--limit must be a positive whole number', ExitCode.usage);
  }
  const list = await client.listAuditEvents({
    ...(o.sandbox ? { sandbox: o.sandbox } : {}),
    ...(o.since ? { since: sinceTime(o.since) } : {}),
    ...(o.reason ? { reason: o.reason } : {}),
    ...(limit ? { limit } : {}),
  });
  await printAs(parseFormat(o.output), list, (wide) => ({
    headers: wide
      ? ['time', 'namespace', 'sandbox', 'reason', 'actor', 'type', 'message']
      : ['age', 'sandbox', 'reason', 'actor', 'message'],
    rows: list.items.map((e) =>
      wide
        ? [e.time, e.namespace, e.sandbox, e.reason, e.actor ?? '', e.type, e.message]
        : [age(e.time), e.sandbox, e.reason, e.actor ?? '', e.message],
    ),
  }));
  return ExitCode.ok;
}
