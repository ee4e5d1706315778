import { useState } from 'preact/hooks';
import type { Sandbox } from '../../../clients/typescript/index.ts';
import { ErrorBox } from '../errors.tsx';
import type { Session } from '../main.tsx';

/** Forwarded ports (from the sandbox's status, kept live) and their preview links. */
export function PortsTab({ session, sandbox }: { session: Session; sandbox: Sandbox }) {
  const name = sandbox.metadata.name;
  const ports = sandbox.status?.forwardedPorts ?? [];
  const [port, setPort] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const run = async (what: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await what();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          void run(() => session.client.forwardPort(name, { port: Number(port) }));
        }}
      >
        <label for="port">Port to forward</label>
        <input
          id="port"
          inputMode="numeric"
          required
          pattern="[0-9]{1,5}"
          value={port}
          onInput={(e) => setPort(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          Forward
        </button>
      </form>
      <ErrorBox error={error} />
      {ports.length === 0 ? (
        <p>No forwarded ports.</p>
      ) : (
        <table class="list">
          <thead>
            <tr>
              <th scope="col">Port</th>
              <th scope="col">Preview</th>
              <th scope="col">In the cluster</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {ports.map((p) => {
              // A public preview URL needs no credential; the API's proxy path needs the
              // caller's, which a new tab cannot send, so it is shown for programs to use.
              const url = p.previewUrl ?? session.client.previewUrl(name, p.port);
              return (
                <tr key={p.port}>
                  <td>{p.port}</td>
                  <td>
                    <a href={url} target="_blank" rel="noopener noreferrer">
                      {url}
                    </a>
                  </td>
                  <td>
                    <code>{p.internalUrl}</code>
                  </td>
                  <td>
                    <button
                      type="button"
                      disabled={busy}
                      aria-label={`Stop forwarding port ${p.port}`}
                      onClick={() => void run(() => session.client.unforwardPort(name, p.port))}
                    >
                      Stop forwarding
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </>
  );
}
