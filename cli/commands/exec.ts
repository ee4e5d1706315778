// exec and logs: code mode's API (POST /sandboxes/{id}/exec, GET /sandboxes/{id}/logs).
import type { SvcClient } from '../../clients/typescript/index.ts';
import { CliError, ExitCode } from '../errors.ts';
import type { Invocation } from '../main.ts';
import { openSession } from '../session.ts';

interface ExecEvents {
  start: { invokeId: string };
  log: { stream: 'stdout' | 'stderr'; data: string };
  exit: { invokeId?: string; exitCode: number; reason: string };
  error: { code: string; message: string };
}

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

async function eventStream<M>(res: Response, names: (keyof M & string)[]) {
  const { EventStream } = await import('../../clients/typescript/index.ts');
  if (!res.body) throw new CliError('the API answered a stream without a body');
  return new EventStream<M>(res.body, names);
}

export async function exec(
  inv: Invocation<{ workdir?: string; env?: string[]; timeout?: string }>,
): Promise<number> {
  const name = inv.args[0]!;
  if (inv.variadic.length === 0)
    throw new CliError('a command is needed: sbx exec NAME -- CMD…', ExitCode.usage);
  const stdin = await readStdin();
  const env = envOf(inv.opts.env);
  const { client } = await openSession(inv.globals);
  const disconnect = new AbortController();
  const path = `/sandboxes/${encodeURIComponent(name)}/exec`;
  let invokeId: string | undefined;
  let interrupted = false;
  const onSigint = () => {
    if (interrupted || invokeId === undefined) {
      interrupted = true;
      disconnect.abort();
      return;
    }
    interrupted = true;
    void client
      .request('POST', `${path}/cancel`, {
        body: JSON.stringify({ invokeId }),
        headers: { 'content-type': 'application/json' },
      })
      .catch(() => disconnect.abort());
  };
  process.on('SIGINT', onSigint);
  try {
    const res = await client.request('POST', path, {
      body: JSON.stringify({
        command: inv.variadic,
        ...(stdin !== undefined && stdin !== '' ? { stdin } : {}),
        ...(inv.opts.workdir ? { workingDir: inv.opts.workdir } : {}),
        ...(env ? { env } : {}),
        ...(inv.opts.timeout ? { timeout: inv.opts.timeout } : {}),
      }),
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      signal: disconnect.signal,
    });
    for await (const e of await eventStream<ExecEvents>(res, ['start', 'log', 'exit', 'error'])) {
      if (e.event === 'start') invokeId = e.data.invokeId;
      else if (e.event === 'log')
        (e.data.stream === 'stderr' ? process.stderr : process.stdout).write(e.data.data);
      else if (e.event === 'error') process.stderr.write(`error: ${e.data.message} (${e.data.code})\n`);
      else {
        if (interrupted) return ExitCode.interrupted;
        if (e.data.reason !== 'completed')
          process.stderr.write(`exec ${e.data.reason}: exit ${e.data.exitCode}\n`);
        return e.data.exitCode >= 0 && e.data.exitCode <= 255 ? e.data.exitCode : ExitCode.error;
      }
    }
    if (interrupted) return ExitCode.interrupted;
    throw new CliError('the exec’s stream ended without an exit event');
  } catch (err) {
    if (interrupted) return ExitCode.interrupted;
    throw err;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

export async function logs(inv: Invocation<{ follow?: boolean }>): Promise<number> {
  const name = inv.args[0]!;
  const { client } = await openSession(inv.globals);
  const path = `/sandboxes/${encodeURIComponent(name)}/logs`;
  if (!inv.opts.follow) {
    const res = await client.request('GET', path);
    writeLogs(await res.text(), res.headers.get('content-type') ?? '');
    return ExitCode.ok;
  }
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  try {
    const res = await client.request('GET', `${path}?follow=true`, {
      headers: { accept: 'text/event-stream' },
      signal: stop.signal,
    });
    for await (const e of await eventStream<{ log: ExecEvents['log'] }>(res, ['log'])) {
      (e.data.stream === 'stderr' ? process.stderr : process.stdout).write(e.data.data);
    }
  } catch (err) {
    if (stop.signal.aborted) return ExitCode.ok;
    throw err;
  }
  return ExitCode.ok;
}

/** The logs' answer as text: plain text as it is, or the JSON's entries, each to its stream. */
function writeLogs(text: string, type: string): void {
  if (!type.includes('json')) {
    process.stdout.write(text);
    return;
  }
  const body = JSON.parse(text) as {
    logs?: string | { stream?: string; data: string }[];
    entries?: { stream?: string; data: string }[];
    stdout?: string;
    stderr?: string;
  };
  const entries = Array.isArray(body.logs) ? body.logs : body.entries;
  if (entries) {
    for (const e of entries) (e.stream === 'stderr' ? process.stderr : process.stdout).write(e.data);
  } else if (typeof body.logs === 'string') process.stdout.write(body.logs);
  else {
    if (body.stdout) process.stdout.write(body.stdout);
    if (body.stderr) process.stderr.write(body.stderr);
  }
}

export type { SvcClient };
