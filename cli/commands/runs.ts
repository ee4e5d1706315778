// runs and attach: a sandbox's invokes and execs, attached or detached, and reading one's
// events (replayed, then followed; a dropped connection resumes after the last event id).
import type { DetachedRun, SvcClient } from '../../clients/typescript/index.ts';
import { ExitCode } from '../errors.ts';
import type { Invocation } from '../main.ts';
import { age, parseFormat, printAs } from '../output.ts';
import { openSession } from '../session.ts';

export async function runs(inv: Invocation<{ output?: string }>): Promise<number> {
  const name = inv.args[0]!;
  const { client } = await openSession(inv.globals);
  const list = await client.listRuns(name);
  await printAs(parseFormat(inv.opts.output), list, (wide) => ({
    headers: ['id', 'kind', 'state', 'exit', 'reason', 'detached', 'age', ...(wide ? ['duration'] : [])],
    rows: list.items.map((r) => [
      r.invokeId,
      r.kind,
      r.state,
      r.exitCode === null ? '' : String(r.exitCode),
      r.reason ?? '',
      r.detached ? 'yes' : 'no',
      age(r.startedAt),
      ...(wide ? [r.durationMs === null ? '' : `${r.durationMs}ms`] : []),
    ]),
  }));
  return ExitCode.ok;
}

/** What a detached start prints: the id on stdout (for scripts), how to read it on stderr. */
export function printDetached(name: string, run: DetachedRun): number {
  process.stdout.write(`${run.invokeId}\n`);
  process.stderr.write(`detached; follow it with: sbx attach ${name} ${run.invokeId}\n`);
  return ExitCode.ok;
}

export async function attach(
  inv: Invocation<{ lastEventId?: string; cancelOnInterrupt?: boolean }>,
): Promise<number> {
  const [name, invokeId] = inv.args as [string, string];
  const { client } = await openSession(inv.globals);
  return follow(client, name, invokeId, inv.opts);
}

/**
 * Prints a run's output to its end and answers its exit code. Ctrl-C detaches (the run goes
 * on; the id to resume after is printed), or with `cancelOnInterrupt` cancels it and reads
 * on to its exit.
 */
async function follow(
  client: SvcClient,
  name: string,
  invokeId: string,
  opts: { lastEventId?: string; cancelOnInterrupt?: boolean },
): Promise<number> {
  const stop = new AbortController();
  let last = opts.lastEventId;
  let canceling = false;
  const onSigint = () => {
    if (opts.cancelOnInterrupt && !canceling) {
      canceling = true;
      process.stderr.write(`\ncanceling ${invokeId}…\n`);
      client.cancelRun(name, invokeId).catch((err: unknown) => {
        process.stderr.write(`cancel failed (${(err as Error).message}); detaching\n`);
        stop.abort();
      });
      return;
    }
    stop.abort();
  };
  process.on('SIGINT', onSigint);
  try {
    const events = client.attach(name, invokeId, {
      signal: stop.signal,
      ...(opts.lastEventId ? { lastEventId: opts.lastEventId } : {}),
    });
    for await (const e of events) {
      if (e.id !== undefined) last = e.id;
      switch (e.event) {
        case 'log':
          (e.data.stream === 'stderr' ? process.stderr : process.stdout).write(e.data.data);
          break;
        case 'drop':
          process.stderr.write(
            `(${e.data.droppedBytes} bytes of earlier output were dropped from the buffer)\n`,
          );
          break;
        case 'error':
          process.stderr.write(`error: ${e.data.message} (${e.data.code})\n`);
          break;
        case 'exit':
          if (e.data.reason !== 'completed')
            process.stderr.write(`${invokeId} ${e.data.reason}: exit ${e.data.exitCode}\n`);
          return e.data.exitCode >= 0 && e.data.exitCode <= 255 ? e.data.exitCode : ExitCode.error;
      }
    }
  } catch (err) {
    if (!stop.signal.aborted) throw err;
  } finally {
    process.off('SIGINT', onSigint);
  }
  if (stop.signal.aborted) {
    const resume = last ? ` --last-event-id ${last}` : '';
    process.stderr.write(`\ndetached; ${invokeId} goes on: sbx attach ${name} ${invokeId}${resume}\n`);
    return ExitCode.ok;
  }
  // The stream ended with nothing after lastEventId: the run had already exited.
  return ExitCode.ok;
}
