// templates, create, ls, get, rm, stop, resume, clone and ports.
import type { Phase, Sandbox, SvcClient } from '../../clients/typescript/index.ts';
import { CliError, ExitCode } from '../errors.ts';
import type { Invocation } from '../main.ts';
import { age, paint, parseFormat, printAs, useColour } from '../output.ts';
import { openSession } from '../session.ts';
import { spinner } from '../spinner.ts';

type WithOutput = { output?: string };
type Waiting = { wait?: boolean; waitTimeout?: string };

const created = (s: Sandbox) => (s.metadata as { creationTimestamp?: string }).creationTimestamp;

function sandboxRows(items: Sandbox[], wide: boolean) {
  const headers = ['name', 'mode', 'phase', 'template', 'age'];
  if (wide) headers.push('namespace', 'owner', 'ports', 'message');
  const rows = items.map((s) => {
    const row = [
      s.metadata.name,
      s.spec.mode ?? 'code',
      s.status?.phase ?? 'Pending',
      s.spec.templateRef?.name ?? '',
      age(created(s)),
    ];
    if (wide) {
      row.push(
        s.metadata.namespace,
        s.spec.createdBy ?? '',
        (s.status?.forwardedPorts ?? []).map((p) => String(p.port)).join(',') || '<none>',
        s.status?.message ?? '',
      );
    }
    return row;
  });
  return { headers, rows };
}

function seconds(value: string | undefined, flag: string): number {
  const n = Number(value ?? '300');
  if (!Number.isFinite(n) || n <= 0)
    throw new CliError(`${flag} must be a number of seconds`, ExitCode.usage);
  return n;
}

/**
 * Waits for `phase`, a spinner showing the sandbox's phase and message meanwhile; fails
 * when it lands in Error instead, or at the timeout, with the last status in the message.
 */
export async function waitFor(
  client: SvcClient,
  name: string,
  phase: Phase,
  timeoutSeconds: number,
): Promise<Sandbox> {
  const spin = spinner();
  const deadline = Date.now() + timeoutSeconds * 1000;
  const colour = paint(useColour(process.stderr));
  try {
    for (;;) {
      const s = await client.getSandbox(name);
      const now = s.status?.phase ?? 'Pending';
      const message = s.status?.message ? `: ${s.status.message}` : '';
      if (now === phase) {
        spin.stop(`${colour.green('✓')} ${name} is ${phase}`);
        return s;
      }
      if (now === 'Error' && phase !== 'Error') {
        spin.stop();
        throw new CliError(`${name} is in phase Error${message}`);
      }
      if (Date.now() >= deadline) {
        spin.stop();
        throw new CliError(`${name} is not ${phase} after ${timeoutSeconds} s (phase ${now}${message})`);
      }
      spin.update(`${name}: ${now}${message}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  } catch (err) {
    spin.stop();
    throw err;
  }
}

export async function templates(inv: Invocation<WithOutput>): Promise<number> {
  const { client } = await openSession(inv.globals);
  const list = await client.listTemplates();
  await printAs(parseFormat(inv.opts.output), list, (wide) => ({
    headers: wide ? ['name', 'kind', 'image', 'description'] : ['name', 'kind', 'description'],
    rows: list.templates.map((t) =>
      wide ? [t.name, t.kind, t.image ?? '', t.description ?? ''] : [t.name, t.kind, t.description ?? ''],
    ),
  }));
  return ExitCode.ok;
}

export async function create(
  inv: Invocation<
    WithOutput &
      Waiting & {
        template: string;
        mode?: 'code' | 'agent';
        timeout?: string;
        idleTimeout?: string;
        image?: string;
      }
  >,
): Promise<number> {
  const { client } = await openSession(inv.globals);
  const o = inv.opts;
  const name = inv.args[0]!;
  let s = await client.createSandbox({
    name,
    templateRef: { name: o.template },
    ...(o.mode ? { mode: o.mode } : {}),
    ...(o.timeout ? { timeout: o.timeout } : {}),
    ...(o.idleTimeout ? { idleTimeout: o.idleTimeout } : {}),
    ...(o.image ? { image: { repository: o.image } } : {}),
  });
  if (o.wait) s = await waitFor(client, name, 'Running', seconds(o.waitTimeout, '--wait-timeout'));
  else if (!o.output)
    process.stderr.write(`sandbox ${name} created (phase ${s.status?.phase ?? 'Pending'})\n`);
  if (o.output) await printAs(parseFormat(o.output), s, (wide) => sandboxRows([s], wide));
  return ExitCode.ok;
}

export async function list(
  inv: Invocation<WithOutput & { mode?: 'code' | 'agent'; phase?: string }>,
): Promise<number> {
  const { client } = await openSession(inv.globals);
  const items: Sandbox[] = [];
  let page: Awaited<ReturnType<SvcClient['listSandboxes']>> | undefined;
  let cont: string | undefined;
  // Every page: the table is the whole list, as kubectl's.
  do {
    page = await client.listSandboxes({
      ...(inv.opts.mode ? { mode: inv.opts.mode } : {}),
      ...(inv.opts.phase ? { phase: inv.opts.phase as Phase } : {}),
      ...(cont ? { continue: cont } : {}),
    });
    items.push(...page.items);
    cont = page.continue;
  } while (cont);
  await printAs(parseFormat(inv.opts.output), { ...page, items, continue: undefined }, (wide) =>
    sandboxRows(items, wide),
  );
  return ExitCode.ok;
}

export async function get(inv: Invocation<WithOutput>): Promise<number> {
  const { client } = await openSession(inv.globals);
  const s = await client.getSandbox(inv.args[0]!);
  await printAs(parseFormat(inv.opts.output), s, (wide) => sandboxRows([s], wide));
  return ExitCode.ok;
}

export async function remove(inv: Invocation): Promise<number> {
  const { client } = await openSession(inv.globals);
  let failed = false;
  // Every name is tried; one that fails does not spare the others (as kubectl delete).
  for (const name of inv.variadic) {
    try {
      await client.deleteSandbox(name);
      process.stdout.write(`sandbox ${name} deleted\n`);
    } catch (err) {
      const { describeError } = await import('../errors.ts');
      process.stderr.write(`error: ${name}: ${describeError(err).line}\n`);
      failed = true;
    }
  }
  return failed ? ExitCode.error : ExitCode.ok;
}

export async function stop(inv: Invocation<Waiting>): Promise<number> {
  const { client } = await openSession(inv.globals);
  const name = inv.args[0]!;
  await client.stopSandbox(name);
  if (inv.opts.wait) await waitFor(client, name, 'Stopped', seconds(inv.opts.waitTimeout, '--wait-timeout'));
  else process.stdout.write(`sandbox ${name} stopping\n`);
  return ExitCode.ok;
}

export async function resume(inv: Invocation<Waiting>): Promise<number> {
  const { client } = await openSession(inv.globals);
  const name = inv.args[0]!;
  await client.resumeSandbox(name);
  if (inv.opts.wait) await waitFor(client, name, 'Running', seconds(inv.opts.waitTimeout, '--wait-timeout'));
  else process.stdout.write(`sandbox ${name} resuming\n`);
  return ExitCode.ok;
}

export async function clone(inv: Invocation<WithOutput & Waiting>): Promise<number> {
  const { client } = await openSession(inv.globals);
  const [source, name] = inv.args as [string, string | undefined];
  const made = await client.cloneSandbox(source, name ? { name } : {});
  if (inv.opts.wait) {
    const s = await waitFor(client, made.name, 'Running', seconds(inv.opts.waitTimeout, '--wait-timeout'));
    if (inv.opts.output) await printAs(parseFormat(inv.opts.output), s, (wide) => sandboxRows([s], wide));
    return ExitCode.ok;
  }
  await printAs(parseFormat(inv.opts.output), made, () => ({
    headers: ['name', 'cloned-from', 'snapshot', 'phase'],
    rows: [[made.name, made.clonedFrom, made.snapshot, made.phase]],
  }));
  return ExitCode.ok;
}

export async function ports(inv: Invocation<WithOutput>): Promise<number> {
  const { client } = await openSession(inv.globals);
  const name = inv.args[0]!;
  const answer = await client.listPorts(name);
  await printAs(parseFormat(inv.opts.output), answer, (wide) => ({
    headers: wide
      ? ['port', 'protocol', 'preview', 'internal-url', 'preview-url']
      : ['port', 'protocol', 'preview'],
    rows: answer.ports.map((p) => {
      const row = [String(p.port), p.protocol, client.previewUrl(name, p.port)];
      if (wide) row.push(p.internalUrl ?? '', p.previewUrl ?? '');
      return row;
    }),
  }));
  return ExitCode.ok;
}
