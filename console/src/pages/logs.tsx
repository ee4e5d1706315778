import { useEffect, useState } from 'preact/hooks';
import { ErrorBox } from '../errors.tsx';
import type { Session } from '../main.tsx';
import { Output, type Line } from '../output.tsx';
import { Runs } from './runs.tsx';

/** The template process's recent output, then new output as it comes (`?follow=true`). */
export function LogsTab({ session, name }: { session: Session; name: string }) {
  const [lines, setLines] = useState<Line[]>([]);
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    const stop = new AbortController();
    setLines([]);
    (async () => {
      const stream = await session.client.followSandboxLogs(name, { signal: stop.signal });
      for await (const ev of stream)
        setLines((l) => [...l.slice(-2000), { stream: ev.data.stream, data: ev.data.data }]);
    })().catch((err: unknown) => {
      if (!stop.signal.aborted) setError(err);
    });
    return () => stop.abort();
  }, [session, name]);
  return (
    <>
      <h2>Logs</h2>
      <ErrorBox error={error} />
      <Output lines={lines} label="Logs" />
      <Runs session={session} name={name} />
    </>
  );
}
