import { useRef, useState } from 'preact/hooks';
import { ErrorBox } from '../errors.tsx';
import type { Session } from '../main.tsx';
import { Output, type Line } from '../output.tsx';
import { Runs } from './runs.tsx';

interface FileDraft {
  path: string;
  content: string;
}

/** Configure (files, install, entrypoint; the install's output streamed) and invoke. */
export function AgentTab({ session, name }: { session: Session; name: string }) {
  return (
    <>
      <div class="columns">
        <Configure session={session} name={name} />
        <Invoke session={session} name={name} />
      </div>
      <Runs session={session} name={name} />
    </>
  );
}

const sh = (command: string) => ['sh', '-c', command];

function Configure({ session, name }: { session: Session; name: string }) {
  const [files, setFiles] = useState<FileDraft[]>([{ path: '/workspace/agent.sh', content: '' }]);
  const [install, setInstall] = useState('');
  const [entrypoint, setEntrypoint] = useState('');
  const [lines, setLines] = useState<Line[]>([]);
  const [result, setResult] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    setLines([]);
    try {
      const stream = await session.client.configureSandbox(name, {
        files: files.filter((f) => f.path.trim() !== ''),
        entrypoint: sh(entrypoint),
        ...(install.trim() ? { installCommand: sh(install) } : {}),
      });
      for await (const ev of stream) {
        if (ev.event === 'log') setLines((l) => [...l, { stream: ev.data.stream, data: ev.data.data }]);
        else if (ev.event === 'result')
          setResult(
            ev.data.skipped
              ? 'Configured (install skipped: unchanged)'
              : `Configured; install exit code ${ev.data.installExitCode}`,
          );
        else if (ev.event === 'error') setError(new Error(`${ev.data.code}: ${ev.data.message}`));
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const update = (i: number, patch: Partial<FileDraft>) =>
    setFiles((fs) => fs.map((f, j) => (j === i ? { ...f, ...patch } : f)));
  return (
    <form class="form" aria-labelledby="configure-title" onSubmit={(e) => void submit(e)}>
      <h2 id="configure-title">Configure</h2>
      {files.map((f, i) => (
        <fieldset key={i}>
          <legend>File {i + 1}</legend>
          <label for={`file-path-${i}`}>Path</label>
          <input
            id={`file-path-${i}`}
            value={f.path}
            onInput={(e) => update(i, { path: e.currentTarget.value })}
          />
          <label for={`file-content-${i}`}>Content</label>
          <textarea
            id={`file-content-${i}`}
            rows={5}
            value={f.content}
            onInput={(e) => update(i, { content: e.currentTarget.value })}
          />
          <button type="button" onClick={() => setFiles((fs) => fs.filter((_, j) => j !== i))}>
            Remove file {i + 1}
          </button>
        </fieldset>
      ))}
      <button type="button" onClick={() => setFiles((fs) => [...fs, { path: '', content: '' }])}>
        Add a file
      </button>
      <label for="install">Install command (optional, run with sh -c)</label>
      <input id="install" value={install} onInput={(e) => setInstall(e.currentTarget.value)} />
      <label for="entrypoint">Entrypoint (run with sh -c; stdin is the invoke's input)</label>
      <input
        id="entrypoint"
        required
        value={entrypoint}
        onInput={(e) => setEntrypoint(e.currentTarget.value)}
      />
      <div>
        <button type="submit" class="primary" disabled={busy}>
          Configure
        </button>
      </div>
      <Output lines={lines} label="Install output" />
      {result ? (
        <p role="status" class="result">
          {result}
        </p>
      ) : null}
      <ErrorBox error={error} />
    </form>
  );
}

function Invoke({ session, name }: { session: Session; name: string }) {
  const [stdin, setStdin] = useState('');
  const [lines, setLines] = useState<Line[]>([]);
  const [exit, setExit] = useState<{ exitCode: number; durationMs: number; reason: string }>();
  const [error, setError] = useState<unknown>();
  const [invokeId, setInvokeId] = useState<string>();
  const [running, setRunning] = useState(false);
  const [detach, setDetach] = useState(false);
  const [detached, setDetached] = useState<string>();
  const cancelling = useRef(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setRunning(true);
    setError(undefined);
    setExit(undefined);
    setLines([]);
    setInvokeId(undefined);
    setDetached(undefined);
    cancelling.current = false;
    try {
      if (detach) {
        setDetached((await session.client.invokeSandbox(name, stdin, { detach: true })).invokeId);
        return;
      }
      const stream = await session.client.invokeSandbox(name, stdin);
      for await (const ev of stream) {
        if (ev.event === 'start') setInvokeId(ev.data.invokeId);
        else if (ev.event === 'log') setLines((l) => [...l, { stream: ev.data.stream, data: ev.data.data }]);
        else if (ev.event === 'exit') setExit(ev.data);
        else if (ev.event === 'error') setError(new Error(`${ev.data.code}: ${ev.data.message}`));
      }
    } catch (err) {
      setError(err);
    } finally {
      setRunning(false);
    }
  };
  const cancel = async () => {
    if (!invokeId || cancelling.current) return;
    cancelling.current = true;
    try {
      await session.client.cancelInvoke(name, invokeId);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="form" aria-labelledby="invoke-title" onSubmit={(e) => void submit(e)}>
      <h2 id="invoke-title">Invoke</h2>
      <label for="stdin">Input (stdin)</label>
      <textarea id="stdin" rows={4} value={stdin} onInput={(e) => setStdin(e.currentTarget.value)} />
      <label>
        <input type="checkbox" checked={detach} onChange={(e) => setDetach(e.currentTarget.checked)} />{' '}
        Detached: the run goes on without this page (attach to it under Runs)
      </label>
      <div class="actions">
        <button type="submit" class="primary" disabled={running}>
          Invoke
        </button>
        <button type="button" class="danger" disabled={!running || !invokeId} onClick={() => void cancel()}>
          Cancel
        </button>
        {running ? <span role="status">Running{invokeId ? ` (${invokeId})` : ''}…</span> : null}
      </div>
      {detached ? <p role="status">Started {detached}: refresh the runs below to attach to it.</p> : null}
      <Output lines={lines} label="Invoke output" />
      {exit ? (
        <p role="status" class="result" data-exit-code={exit.exitCode}>
          Exit code {exit.exitCode} ({exit.reason}) after {(exit.durationMs / 1000).toFixed(2)} s
        </p>
      ) : null}
      <ErrorBox error={error} />
    </form>
  );
}
