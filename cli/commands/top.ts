// top: a sandbox's usage (or every running sandbox of yours), as `kubectl top` shows Pods'.
// On a terminal the table refreshes every --interval seconds until Ctrl-C; piped or
// redirected, it prints once, plain, and exits.
import type { Sandbox, SandboxUsage, SvcClient } from '../../clients/typescript/index.ts';
import { CliError, ExitCode } from '../errors.ts';
import type { Invocation } from '../main.ts';
import { table } from '../output.ts';
import { openSession } from '../session.ts';

export async function top(inv: Invocation<{ interval?: string; once?: boolean }>): Promise<number> {
  const interval = Number(inv.opts.interval ?? '2');
  if (!Number.isFinite(interval) || interval < 1)
    throw new CliError(`--interval must be 1 second or more, not "${inv.opts.interval}"`, ExitCode.usage);
  const { client } = await openSession(inv.globals);
  const name = inv.args[0];
  const live = process.stdout.isTTY === true && !inv.opts.once;
  if (!live) {
    process.stdout.write(await render(client, name));
    return ExitCode.ok;
  }
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  while (!stop.signal.aborted) {
    const text = await render(client, name);
    // Home and clear, then the table: one write, so the screen never shows half of one.
    process.stdout.write(`\x1b[H\x1b[2J${text}`);
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, interval * 1000);
      stop.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    });
  }
  return ExitCode.interrupted;
}

async function render(client: SvcClient, name: string | undefined): Promise<string> {
  const names = name ? [name] : await runningNames(client);
  if (names.length === 0) return 'No running sandboxes.\n';
  const rows = await Promise.all(
    names.map(async (n) => {
      try {
        return usageRow(n, await client.getSandboxUsage(n));
      } catch (err) {
        // One sandbox sent alone: its error is the answer; among many, a row that says so.
        if (name) throw err;
        return [n, '-', '-', '-', '-', '-', '-', '-'];
      }
    }),
  );
  return table(
    ['name', 'cpu(cores)', 'memory', 'disk used', 'disk free', 'processes', 'runs', 'terminals'],
    rows,
  );
}

async function runningNames(client: SvcClient): Promise<string[]> {
  const items: Sandbox[] = [];
  let cont: string | undefined;
  do {
    const page = await client.listSandboxes({ phase: 'Running', ...(cont ? { continue: cont } : {}) });
    items.push(...page.items);
    cont = page.continue;
  } while (cont);
  return items.map((s) => s.metadata?.name ?? '').sort();
}

export function usageRow(name: string, u: SandboxUsage): string[] {
  const runs = u.runs.exec + u.runs.invoke + u.runs.configure;
  return [
    name,
    u.cgroup ? u.cpu.cores.toFixed(2) : '-',
    u.cgroup ? bytes(u.memory.workingSetBytes) : '-',
    bytes(u.workspace.usedBytes),
    bytes(u.workspace.freeBytes),
    String(u.processes),
    String(runs),
    String(u.terminals),
  ];
}

/** Bytes in binary units, as kubectl top prints memory (`Mi`, `Gi`). */
export function bytes(n: number): string {
  const units = ['', 'Ki', 'Mi', 'Gi', 'Ti'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n}` : `${v >= 100 ? v.toFixed(0) : v.toFixed(1)}${units[i]}`;
}
