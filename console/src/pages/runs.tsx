import { useEffect, useRef, useState } from 'preact/hooks';
import type { RunSummary } from '../../../clients/typescript/index.ts';
import { ErrorBox } from '../errors.tsx';
import type { Session } from '../main.tsx';
import { Output, type Line } from '../output.tsx';

/**
 * The sandbox's invokes and execs (running, and ended ones sandboxd still keeps), and one of
 * them attached: its output from the start, then live; a dropped connection resumes after
 * the last event seen. Leaving (Detach, another tab) leaves the run alone.
 */
export function Runs({ session, name }: { session: Session; name: string }) {
  const [runs, setRuns] = useState<RunSummary[]>([]);
  const [error, setError] = useState<unknown>();
  const [attached, setAttached] = useState<string>();
  const refresh = async () => {
    try {
      setRuns(await session.client.runs(name));
    } catch (err) {
      setError(err);
    }
  };
  useEffect(() => {
    void refresh();
  }, [session, name]);
  const stop = async (invokeId: string) => {
    try {
      await session.client.cancelRun(name, invokeId);
      await refresh();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="runs-title">
      <h2 id="runs-title">Runs</h2>
      <button type="button" onClick={() => void refresh()}>
        Refresh runs
      </button>
      <table>
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Kind</th>
            <th scope="col">State</th>
            <th scope="col">Exit</th>
            <th scope="col">Detached</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.invokeId}>
              <td>{r.invokeId}</td>
              <td>{r.kind}</td>
              <td>{r.state}</td>
              <td>{r.exitCode === null ? '' : `${r.exitCode} (${r.reason ?? ''})`}</td>
              <td>{r.detached ? 'yes' : 'no'}</td>
              <td>
                <button type="button" onClick={() => setAttached(r.invokeId)}>
                  Attach to {r.invokeId}
                </button>
                {r.state === 'running' ? (
                  <button type="button" class="danger" onClick={() => void stop(r.invokeId)}>
                    Stop {r.invokeId}
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {runs.length === 0 ? <p>No runs kept.</p> : null}
      <ErrorBox error={error} />
      {attached ? (
        <Attached
          key={attached}
          session={session}
          name={name}
          invokeId={attached}
          onDetach={() => setAttached(undefined)}
        />
      ) : null}
    </section>
  );
}

function Attached(props: { session: Session; name: string; invokeId: string; onDetach: () => void }) {
  const { session, name, invokeId } = props;
  const [lines, setLines] = useState<Line[]>([]);
  const [error, setError] = useState<unknown>();
  const stop = useRef(new AbortController());
  useEffect(() => {
    const abort = stop.current;
    (async () => {
      for await (const ev of session.client.attach(name, invokeId, { signal: abort.signal })) {
        if (ev.event === 'log')
          setLines((l) => [...l.slice(-2000), { stream: ev.data.stream, data: ev.data.data }]);
        else if (ev.event === 'drop')
          setLines((l) => [
            ...l,
            { stream: 'info', data: `(${ev.data.droppedBytes} earlier bytes dropped)\n` },
          ]);
        else if (ev.event === 'exit')
          setLines((l) => [
            ...l,
            {
              stream: 'info',
              data: `exit code ${ev.data.exitCode} (${ev.data.reason}), ${ev.data.durationMs} ms\n`,
            },
          ]);
      }
    })().catch((err: unknown) => {
      if (!abort.signal.aborted) setError(err);
    });
    return () => abort.abort();
  }, [session, name, invokeId]);
  return (
    <div>
      <h3>{invokeId}</h3>
      <button type="button" onClick={props.onDetach}>
        Detach
      </button>
      <Output lines={lines} label={`Output of ${invokeId}`} />
      <ErrorBox error={error} />
    </div>
  );
}
