// configure, invoke and cancel: agent mode.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, posix, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import type { InvokeEvents, InvokeInput, SvcClient } from '../../clients/typescript/index.ts';
import { CliError, ExitCode } from '../errors.ts';
import type { Invocation } from '../main.ts';
import { paint, useColour } from '../output.ts';
import { openSession } from '../session.ts';
import { cancelOnCtrlC } from './ctrl-c.ts';

interface ConfigureFile {
  path: string;
  content?: string;
  contentBase64?: string;
}

/** `local:/workspace/remote`; the remote part is the last `:/…` (a local name may hold a colon). */
function splitMapping(spec: string): { local: string; remote: string } {
  const at = spec.lastIndexOf(':/');
  if (at <= 0) throw new CliError(`--file wants local:/workspace/path, not "${spec}"`, ExitCode.usage);
  return { local: spec.slice(0, at), remote: spec.slice(at + 1) };
}

/** A file as text when it is UTF-8, else as base64 (binary files). */
function encode(path: string, bytes: Buffer): ConfigureFile {
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes)
    ? { path, content: text }
    : { path, contentBase64: bytes.toString('base64') };
}

async function filesOf(specs: string[]): Promise<ConfigureFile[]> {
  const out: ConfigureFile[] = [];
  for (const spec of specs) {
    const { local, remote } = splitMapping(spec);
    const info = await stat(local).catch(() => {
      throw new CliError(`--file ${spec}: ${local} does not exist`, ExitCode.usage);
    });
    if (!info.isDirectory()) {
      out.push(encode(remote, await readFile(local)));
      continue;
    }
    for (const entry of await readdir(local, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const full = join(entry.parentPath, entry.name);
      const rel = relative(local, full).split(sep).join('/');
      out.push(encode(posix.join(remote, rel), await readFile(full)));
    }
  }
  return out;
}

export async function configure(
  inv: Invocation<{ file?: string[]; install?: string; entrypoint?: string }>,
): Promise<number> {
  const name = inv.args[0]!;
  const o = inv.opts;
  if (o.entrypoint && inv.variadic.length > 0) {
    throw new CliError('give the entrypoint once: --entrypoint "…" or after --', ExitCode.usage);
  }
  const entrypoint = o.entrypoint ? ['sh', '-c', o.entrypoint] : inv.variadic;
  if (entrypoint.length === 0) {
    throw new CliError(
      'an entrypoint is needed: sbx configure NAME … -- python3 /workspace/agent.py',
      ExitCode.usage,
    );
  }
  const files = await filesOf(o.file ?? []);
  const { client } = await openSession(inv.globals);
  const stream = await client.configureSandbox(name, {
    files,
    entrypoint,
    ...(o.install ? { installCommand: ['sh', '-c', o.install] } : {}),
  });
  const colour = paint(useColour(process.stderr));
  for await (const e of stream) {
    if (e.event === 'log') (e.data.stream === 'stderr' ? process.stderr : process.stdout).write(e.data.data);
    else if (e.event === 'error') throw new CliError(`configure failed: ${e.data.message} (${e.data.code})`);
    else if (e.event === 'result') {
      const r = e.data;
      if (r.installExitCode !== 0) {
        throw new CliError(`the install command exited with ${r.installExitCode}; ${name} is not configured`);
      }
      process.stderr.write(
        `${colour.green('✓')} ${name} configured: ${files.length} file(s), entrypoint ${JSON.stringify(r.entrypoint)}` +
          `${o.install ? (r.skipped ? ', install skipped (unchanged)' : ', install exit 0') : ''}\n`,
      );
    }
  }
  return ExitCode.ok;
}

export async function invoke(
  inv: Invocation<{ timeout?: string; showId?: boolean; detach?: boolean }>,
): Promise<number> {
  const name = inv.args[0]!;
  const { client } = await openSession(inv.globals);
  // A terminal is not input: only piped or redirected stdin is sent (as it is read).
  const input: InvokeInput | undefined = process.stdin.isTTY
    ? undefined
    : (Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
  if (inv.opts.detach) {
    const run = await client.invokeSandbox(name, input, {
      detach: true,
      ...(inv.opts.timeout ? { timeout: inv.opts.timeout } : {}),
    });
    const { printDetached } = await import('./runs.ts');
    return printDetached(name, run);
  }
  const ctrlC = cancelOnCtrlC((id) => client.cancelInvoke(name, id), 'invoke');
  try {
    const query = inv.opts.timeout ? `?timeout=${encodeURIComponent(inv.opts.timeout)}` : '';
    const stream = query
      ? await invokeWithTimeout(client, name, input, query, ctrlC.signal)
      : await client.invokeSandbox(name, input, { signal: ctrlC.signal });
    for await (const e of stream) {
      switch (e.event) {
        case 'start':
          ctrlC.started(e.data.invokeId);
          if (inv.opts.showId || process.stderr.isTTY) process.stderr.write(`invoke ${e.data.invokeId}\n`);
          break;
        case 'log':
          (e.data.stream === 'stderr' ? process.stderr : process.stdout).write(e.data.data);
          break;
        case 'error':
          process.stderr.write(`error: ${e.data.message} (${e.data.code})\n`);
          break;
        case 'exit':
          if (e.data.reason !== 'completed' || ctrlC.interrupted) {
            process.stderr.write(`invoke ${e.data.invokeId} ${e.data.reason}: exit ${e.data.exitCode}\n`);
          }
          if (ctrlC.interrupted) return ExitCode.interrupted;
          // -1 (killed, canceled, timed out) is no exit status a shell knows: 1.
          return e.data.exitCode >= 0 && e.data.exitCode <= 255 ? e.data.exitCode : ExitCode.error;
      }
    }
    if (ctrlC.interrupted) return ExitCode.interrupted;
    throw new CliError('the invoke’s stream ended without an exit event');
  } catch (err) {
    if (ctrlC.interrupted) {
      process.stderr.write(`invoke ${ctrlC.runId ?? '(not started)'} canceled: exit -1\n`);
      return ExitCode.interrupted;
    }
    throw err;
  } finally {
    ctrlC.stop();
  }
}

/** An invoke with `?timeout=`, which the typed method has no parameter for. */
async function invokeWithTimeout(
  client: SvcClient,
  name: string,
  input: InvokeInput | undefined,
  query: string,
  signal: AbortSignal,
) {
  const { EventStream } = await import('../../clients/typescript/index.ts');
  const { sseEventNames } = await import('../../clients/typescript/generated/sse-events.ts');
  const res = await client.request('POST', `/sandboxes/${encodeURIComponent(name)}/invoke${query}`, {
    body: (input ?? null) as RequestInit['body'],
    headers: { 'content-type': 'application/octet-stream', accept: 'text/event-stream' },
    signal,
  });
  if (!res.body) throw new CliError('the API answered the invoke without a body');
  return new EventStream<InvokeEvents>(res.body, [...sseEventNames.invokeSandbox]);
}

export async function cancel(inv: Invocation): Promise<number> {
  const [name, invokeId] = inv.args as [string, string];
  const { client } = await openSession(inv.globals);
  const r = await client.cancelInvoke(name, invokeId);
  process.stdout.write(`invoke ${r.invokeId} ${r.status}\n`);
  return ExitCode.ok;
}
