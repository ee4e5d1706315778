import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable } from 'node:stream';
import type { ExitEvent, ExitReason, RunKind, RunSpec } from '../core/index.ts';
import { RunLog } from './runlog.ts';
import type { SseWriter } from './sse.ts';

/** Finished install runs whose output stays readable, and the output each keeps. */
const FINISHED_LOGS_KEPT = 16;
const LOG_BYTES_KEPT = 8 * 1024 * 1024;

interface Run {
  id: string;
  kind: RunKind;
  child: ChildProcess;
  startedAt: number;
  ending?: 'canceled' | 'timeout';
  killTimer?: NodeJS.Timeout;
  /** Install runs only: their frames, for readers other than the POST that started them. */
  log?: RunLog;
}

/**
 * The processes sandboxd runs, by run id. Each runs in its own process group, so cancel,
 * timeout and shutdown signal the whole tree: SIGTERM, then SIGKILL after the grace period.
 * The concurrency cap counts `invoke` runs only. Install runs are also recorded, and the
 * records of the last few finished ones kept, so another client can attach to them.
 */
export class RunRegistry {
  readonly #runs = new Map<string, Run>();
  /** Oldest first, so the first key is the one to forget. */
  readonly #finishedLogs = new Map<string, RunLog>();
  readonly #graceMs: number;
  readonly #baseEnv: Record<string, string>;
  maxConcurrentInvokes: number;

  constructor(opts: { graceMs: number; maxConcurrentInvokes: number; baseEnv?: Record<string, string> }) {
    this.#graceMs = opts.graceMs;
    this.#baseEnv = opts.baseEnv ?? {};
    this.maxConcurrentInvokes = opts.maxConcurrentInvokes;
  }

  inflight(kind: RunKind = 'invoke'): number {
    let n = 0;
    for (const r of this.#runs.values()) if (r.kind === kind) n++;
    return n;
  }

  has(id: string): boolean {
    return this.#runs.has(id);
  }

  /** The record of an install run in flight or recently finished. */
  log(id: string): RunLog | undefined {
    const run = this.#runs.get(id);
    return run ? run.log : this.#finishedLogs.get(id);
  }

  list(): { runId: string; kind: RunKind; startedAt: string }[] {
    return [...this.#runs.values()].map((r) => ({
      runId: r.id,
      kind: r.kind,
      startedAt: new Date(r.startedAt).toISOString(),
    }));
  }

  /** Starts a run and streams it to `sse`; resolves with its exit once the stream is done. */
  start(spec: RunSpec, stdin: Readable, sse: SseWriter): Promise<ExitEvent> {
    const startedAt = Date.now();
    const child = spawn(spec.argv[0]!, spec.argv.slice(1), {
      cwd: spec.cwd,
      // The sandbox's own environment (template env, credentials) under the run's.
      env: { ...this.#baseEnv, ...spec.env },
      detached: true, // its own process group, so signals reach everything it starts
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const run: Run = { id: spec.runId, kind: spec.kind, child, startedAt };
    if (run.kind === 'install') {
      run.log = new RunLog(LOG_BYTES_KEPT);
      sse.observe(run.log.record);
    }
    this.#runs.set(run.id, run);
    sse.event('start', { invokeId: run.id, startedAt: new Date(startedAt).toISOString() });

    stdin.pipe(child.stdin);
    child.stdin.on('error', () => undefined); // the program may exit without reading stdin
    const pump = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      if (!sse.output(stream, chunk)) {
        child.stdout.pause();
        child.stderr.pause();
      }
    };
    sse.onDrain(() => {
      child.stdout.resume();
      child.stderr.resume();
    });
    child.stdout.on('data', pump('stdout'));
    child.stderr.on('data', pump('stderr'));
    const timeout =
      spec.timeoutMs > 0 ? setTimeout(() => this.#end(run, 'timeout'), spec.timeoutMs) : undefined;

    return new Promise((resolve) => {
      let spawnError: Error | undefined;
      child.on('error', (err) => (spawnError = err));
      child.on('exit', () => {
        // The program is done: nothing of its group may outlive it.
        signalGroup(child, 'SIGKILL');
      });
      child.on('close', (code, signal) => {
        clearTimeout(timeout);
        clearTimeout(run.killTimer);
        this.#runs.delete(run.id);
        sse.flush(true);
        if (spawnError) {
          sse.output('stderr', Buffer.from(`sandboxd: cannot run ${spec.argv[0]}: ${spawnError.message}\n`));
          sse.flush(true);
        }
        const reason: ExitReason = spawnError ? 'error' : (run.ending ?? 'completed');
        const exitCode =
          run.ending === 'canceled'
            ? -1
            : spawnError
              ? 127
              : signal
                ? 128 + (constants.signals[signal] ?? 0)
                : (code ?? 0);
        const exit: ExitEvent = { invokeId: run.id, exitCode, durationMs: Date.now() - startedAt, reason };
        sse.event('exit', exit);
        sse.end();
        if (run.log) this.#keepLog(run.id, run.log);
        resolve(exit);
      });
    });
  }

  /** Cancels a run; false when no such run is in flight. */
  cancel(id: string): boolean {
    const run = this.#runs.get(id);
    if (!run) return false;
    this.#end(run, 'canceled');
    return true;
  }

  /** SIGTERM to every run's group, SIGKILL after the grace period; resolves when all are gone. */
  async shutdown(): Promise<void> {
    const closing = [...this.#runs.values()].map(
      (r) => new Promise((resolve) => r.child.once('close', resolve)),
    );
    for (const run of this.#runs.values()) this.#end(run, 'canceled');
    await Promise.all(closing);
  }

  #keepLog(id: string, log: RunLog): void {
    log.finish();
    this.#finishedLogs.delete(id); // a rerun of the same id becomes the newest
    this.#finishedLogs.set(id, log);
    for (const oldest of this.#finishedLogs.keys()) {
      if (this.#finishedLogs.size <= FINISHED_LOGS_KEPT) break;
      this.#finishedLogs.delete(oldest);
    }
  }

  #end(run: Run, why: 'canceled' | 'timeout'): void {
    if (run.ending) return;
    run.ending = why;
    signalGroup(run.child, 'SIGTERM');
    run.killTimer = setTimeout(() => signalGroup(run.child, 'SIGKILL'), this.#graceMs);
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is already gone
  }
}
