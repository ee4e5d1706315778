import { useState } from 'preact/hooks';
import type { Sandbox } from '../../../clients/typescript/index.ts';
import { Badge, phaseOf } from '../components.tsx';
import { ErrorBox, useAction } from '../errors.tsx';
import type { Session } from '../main.tsx';
import { go, href } from '../router.ts';
import { useSandboxes } from '../watch.ts';

export function ListPage({ session }: { session: Session }) {
  const { sandboxes, live, error } = useSandboxes(session.client);
  const rows = [...sandboxes.values()].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  return (
    <>
      <div class="title-row">
        <h1>Sandboxes</h1>
        <span class={live ? 'live on' : 'live'} aria-live="polite">
          {live ? 'Live' : 'Connecting…'}
        </span>
        <a class="button primary" href={href.create()}>
          New sandbox
        </a>
      </div>
      <ErrorBox error={live ? undefined : error} />
      {rows.length === 0 && live ? <p>No sandboxes yet.</p> : null}
      {rows.length > 0 ? (
        <table class="list">
          <caption class="sr-only">Your sandboxes and their phases (updated live)</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Phase</th>
              <th scope="col">Mode</th>
              <th scope="col">Template</th>
              <th scope="col">Owner</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((s) => (
              <Row key={s.metadata.name} session={session} sandbox={s} />
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

function Row({ session, sandbox }: { session: Session; sandbox: Sandbox }) {
  const name = sandbox.metadata.name;
  const phase = phaseOf(sandbox);
  return (
    <tr data-sandbox={name}>
      <td>
        <a href={href.sandbox(name)}>{name}</a>
      </td>
      <td>
        <Badge phase={phase} />
      </td>
      <td data-label="Mode">{sandbox.spec.mode ?? 'code'}</td>
      <td data-label="Template">{sandbox.spec.templateRef.name}</td>
      <td data-label="Owner">{sandbox.spec.createdBy ?? ''}</td>
      <td>
        <Actions session={session} sandbox={sandbox} />
      </td>
    </tr>
  );
}

/** Stop or resume, clone, delete (asked twice): the same on the list and a sandbox's page. */
export function Actions({ session, sandbox }: { session: Session; sandbox: Sandbox }) {
  const name = sandbox.metadata.name;
  const phase = phaseOf(sandbox);
  const { error, busy, act } = useAction();
  const [confirming, setConfirming] = useState(false);
  const { client } = session;
  return (
    <div class="actions">
      {phase === 'Stopped' ? (
        <button
          type="button"
          disabled={busy}
          onClick={() => void act(() => client.resumeSandbox(name))}
          aria-label={`Resume ${name}`}
        >
          Resume
        </button>
      ) : (
        <button
          type="button"
          disabled={busy}
          onClick={() => void act(() => client.stopSandbox(name))}
          aria-label={`Stop ${name}`}
        >
          Stop
        </button>
      )}
      <button
        type="button"
        disabled={busy}
        aria-label={`Clone ${name}`}
        onClick={() => void act(async () => go(href.sandbox((await client.cloneSandbox(name)).name)))}
      >
        Clone
      </button>
      {confirming ? (
        <>
          <button
            type="button"
            class="danger"
            disabled={busy}
            aria-label={`Really delete ${name}`}
            onClick={() => void act(() => client.deleteSandbox(name)).then(() => setConfirming(false))}
          >
            Really delete
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Keep
          </button>
        </>
      ) : (
        <button
          type="button"
          class="danger"
          disabled={busy}
          onClick={() => setConfirming(true)}
          aria-label={`Delete ${name}`}
        >
          Delete
        </button>
      )}
      <ErrorBox error={error} />
    </div>
  );
}
