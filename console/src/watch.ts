// The caller's sandboxes, kept current by `GET /sandboxes?watch=true` (SSE): no polling,
// and the stream is reopened (after a pause) when it breaks.
import { useEffect, useState } from 'preact/hooks';
import type { Sandbox, SvcClient } from '../../clients/typescript/index.ts';

export interface Watched {
  sandboxes: Map<string, Sandbox>;
  /** False until the first list arrived, and again while reconnecting. */
  live: boolean;
  error: unknown;
}

export function useSandboxes(client: SvcClient): Watched {
  const [state, setState] = useState<Watched>({ sandboxes: new Map(), live: false, error: undefined });
  useEffect(() => {
    const stop = new AbortController();
    const run = async () => {
      while (!stop.signal.aborted) {
        try {
          const stream = await client.watchSandboxes({ signal: stop.signal });
          const seen = new Map<string, Sandbox>();
          setState({ sandboxes: new Map(seen), live: true, error: undefined });
          for await (const ev of stream) {
            const name = ev.data.metadata.name;
            if (ev.event === 'deleted') seen.delete(name);
            else seen.set(name, ev.data);
            setState({ sandboxes: new Map(seen), live: true, error: undefined });
          }
        } catch (err) {
          if (stop.signal.aborted) return;
          setState((s) => ({ ...s, live: false, error: err }));
        }
        await new Promise((r) => setTimeout(r, 2000));
      }
    };
    void run();
    return () => stop.abort();
  }, [client]);
  return state;
}
