// exec and logs: code mode's API (POST /sandboxes/{id}/exec, GET /sandboxes/{id}/logs).
import { CliError, ExitCode } from '../errors.ts';
import type { Invocation } from '../main.ts';
import { openSession } from '../session.ts';
import { cancelOnCtrlC } from './ctrl-c.ts';

async function readStdin(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function envOf(pairs: string[] | undefined): Record<string, string> | undefined {
  if (!pairs || pairs.length === 0) return undefined;
  const env: Record<string, string> = {};
  for (const p of pairs) {
    const at = p.indexOf('=');
    if (at <= 0) throw new CliError(`-e wants KEY=VALUE, not "${p}"`, ExitCode.usage);
    env[p.slice(0, at)] = p.slice(at + 1);
  }
  return env;
}

export async function exec(
  inv: Invocation<{ workdir?: string; env?: string[]; timeout?: string; detach?: boolean }>,
): Promise<number> {
  const name = inv.args[0]!;
  if (inv.variadic.length === 0)
    throw new CliError('a command is needed: sbx exec NAME -- CMD…', ExitCode.usage);
  if (inv.opts.detach && !inv.opts.timeout)
    throw new CliError('a detached exec needs --timeout (such as 1h): nothing else ends it', ExitCode.usage);
  const stdin = await readStdin();
  const env = envOf(inv.opts.env);
  const { client } = await openSession(inv.globals);
  if (inv.opts.detach) {
    const body = {
      command: inv.variadic,
      ...(stdin !== undefined && stdin !== '' ? { stdin } : {}),
      ...(inv.opts.workdir ? { workingDir: inv.opts.workdir } : {}),
      ...(env ? { env } : {}),
      ...(inv.opts.timeout ? { timeout: inv.opts.timeout } : {}),
    };
    const { printDetached } = await import('./runs.ts');
    return printDetached(name, await client.execSandbox(name, body, { detach: true }));
  }
  const ctrlC = cancelOnCtrlC((id) => client.cancelExec(name, id));
  try {
    const stream = await client.execSandboxStream(
      name,
      {
        command: inv.variadic,
        ...(stdin !== undefined && stdin !== '' ? { stdin } : {}),
        ...(inv.opts.workdir ? { workingDir: inv.opts.workdir } : {}),
        ...(env ? { env } : {}),
        ...(inv.opts.timeout ? { timeout: inv.opts.timeout } : {}),
      },
      { signal: ctrlC.signal },
    );
    for await (const e of stream) {
      if (e.event === 'start') ctrlC.started(e.data.invokeId);
      else if (e.event === 'log')
        (e.data.stream === 'stderr' ? process.stderr : process.stdout).write(e.data.data);
      else if (e.event === 'error') process.stderr.write(`error: ${e.data.message} (${e.data.code})\n`);
      else {
        if (ctrlC.interrupted) return ExitCode.interrupted;
        if (e.data.reason !== 'completed')
          process.stderr.write(`exec ${e.data.reason}: exit ${e.data.exitCode}\n`);
        return e.data.exitCode >= 0 && e.data.exitCode <= 255 ? e.data.exitCode : ExitCode.error;
      }
    }
    if (ctrlC.interrupted) return ExitCode.interrupted;
    throw new CliError('the exec’s stream ended without an exit event');
  } catch (err) {
    if (ctrlC.interrupted) return ExitCode.interrupted;
    throw err;
  } finally {
    ctrlC.stop();
  }
}

export async function logs(inv: Invocation<{ follow?: boolean }>): Promise<number> {
  const name = inv.args[0]!;
  const { client } = await openSession(inv.globals);
  if (!inv.opts.follow) {
    const { entries, truncated, droppedBytes } = await client.getSandboxLogs(name);
    if (truncated)
      process.stderr.write(`(${droppedBytes} older bytes dropped: only the last 1 MiB is kept)\n`);
    for (const e of entries) (e.stream === 'stderr' ? process.stderr : process.stdout).write(e.data);
    return ExitCode.ok;
  }
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  try {
    for await (const e of await client.followSandboxLogs(name, { signal: stop.signal })) {
      (e.data.stream === 'stderr' ? process.stderr : process.stdout).write(e.data.data);
    }
  } catch (err) {
    if (stop.signal.aborted) return ExitCode.ok;
    throw err;
  }
  return ExitCode.ok;
}
