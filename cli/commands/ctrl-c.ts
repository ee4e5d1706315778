// Ctrl-C while a run's events stream (exec, invoke): cancel the run, not the connection.

/** What a streaming command reads of Ctrl-C; `stop()` removes the handler. */
export interface CtrlC {
  /** Aborts when the command should disconnect. */
  readonly signal: AbortSignal;
  /** The run's id, once its `start` event told it (`started`). */
  readonly runId: string | undefined;
  /** Whether Ctrl-C was pressed. */
  readonly interrupted: boolean;
  started(runId: string): void;
  stop(): void;
}

/**
 * The first Ctrl-C after the run started asks the server to cancel it (`cancel`), so the
 * stream goes on to the run's `exit` event and says how it ended; a Ctrl-C before the run has
 * an id, a second one, or a cancel that fails disconnects (`signal` aborts). With `noun`
 * (`invoke`), what it does is said on stderr.
 */
export function cancelOnCtrlC(cancel: (runId: string) => Promise<unknown>, noun?: string): CtrlC {
  const disconnect = new AbortController();
  let runId: string | undefined;
  let interrupted = false;
  const onSigint = () => {
    const first = !interrupted;
    interrupted = true;
    if (!first || runId === undefined) {
      disconnect.abort();
      return;
    }
    if (noun) process.stderr.write(`\ncanceling ${noun} ${runId}…\n`);
    cancel(runId).catch((err: unknown) => {
      if (noun) process.stderr.write(`cancel failed (${(err as Error).message}); disconnecting\n`);
      disconnect.abort();
    });
  };
  process.on('SIGINT', onSigint);
  return {
    signal: disconnect.signal,
    get runId() {
      return runId;
    },
    get interrupted() {
      return interrupted;
    },
    started: (id) => (runId = id),
    stop: () => process.off('SIGINT', onSigint),
  };
}
