import { useState } from 'preact/hooks';
import type { Sandbox } from '../../../clients/typescript/index.ts';
import { ErrorBox, useAction } from '../errors.tsx';
import type { Session } from '../main.tsx';

/** Forwarded ports (from the sandbox's status, kept live) and their preview links. */
export function PortsTab({ session, sandbox }: { session: Session; sandbox: Sandbox }) {
  const name = sandbox.metadata.name;
  const ports = sandbox.status?.forwardedPorts ?? [];
  const [port, setPort] = useState('');
  const { error, busy, act: run } = useAction();
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
            {ports.map((p) => (
              <tr key={p.port}>
                <td>{p.port}</td>
                <td>
                  {p.previewUrl ? (
                    // A public preview URL is its own origin and needs no credential here.
                    <a href={p.previewUrl} target="_blank" rel="noopener noreferrer">
                      {p.previewUrl}
                    </a>
                  ) : (
                    // The API's preview path: a new tab cannot send the key (it stays in this
                    // tab's session storage), so a one-use ticket signs that tab in to this
                    // port's preview alone (docs/ports.md). noopener: the tab gets no handle
                    // on this one and no copy of its session storage.
                    <button
                      type="button"
                      disabled={busy}
                      aria-label={`Open preview of port ${p.port}`}
                      onClick={() =>
                        void run(async () => {
                          const { absoluteUrl } = await session.client.createPreviewTicket(name, p.port);
                          window.open(absoluteUrl, '_blank', 'noopener,noreferrer');
                        })
                      }
                    >
                      Open preview
                    </button>
                  )}
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
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
