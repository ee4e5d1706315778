import { lazy, Suspense } from 'preact/compat';
import type { Sandbox } from '../../../clients/typescript/index.ts';
import { Badge, phaseOf } from '../components.tsx';
import { ErrorBox } from '../errors.tsx';
import type { Session } from '../main.tsx';
import { href } from '../router.ts';
import { useSandboxes } from '../watch.ts';
import { AgentTab } from './agent.tsx';
import { EgressTab } from './egress.tsx';
import { FilesTab } from './files.tsx';
import { Actions } from './list.tsx';
import { LogsTab } from './logs.tsx';
import { PortsTab } from './ports.tsx';
import { UsagePanel } from './usage.tsx';

// xterm.js is its own chunk, fetched the first time a terminal opens.
const TerminalTab = lazy(() => import('./terminal.tsx').then((m) => m.TerminalTab));

const TABS = [
  { id: 'overview', label: 'Overview' },
  { id: 'terminal', label: 'Terminal' },
  { id: 'files', label: 'Files' },
  { id: 'ports', label: 'Ports' },
  { id: 'logs', label: 'Logs' },
  { id: 'egress', label: 'Egress' },
  { id: 'agent', label: 'Agent', agentOnly: true },
];

export function SandboxPage({ session, name, tab }: { session: Session; name: string; tab: string }) {
  const { sandboxes, live, error } = useSandboxes(session.client);
  const sandbox = sandboxes.get(name);
  if (!sandbox) {
    return (
      <>
        <h1>{name}</h1>
        {live ? <p>No sandbox {name} (it may have been deleted).</p> : <p>Loading…</p>}
        <ErrorBox error={live ? undefined : error} />
      </>
    );
  }
  const agent = sandbox.spec.mode === 'agent';
  const tabs = TABS.filter((t) => !t.agentOnly || agent);
  const current = tabs.some((t) => t.id === tab) ? tab : 'overview';
  const running = phaseOf(sandbox) === 'Running';
  return (
    <>
      <div class="title-row">
        <h1>{name}</h1>
        <Badge phase={phaseOf(sandbox)} />
        <Actions session={session} sandbox={sandbox} />
      </div>
      <nav class="tabs" aria-label="Sandbox">
        {tabs.map((t) => (
          <a key={t.id} href={href.sandbox(name, t.id)} aria-current={t.id === current ? 'page' : undefined}>
            {t.label}
          </a>
        ))}
      </nav>
      <section class="tab" aria-label={tabs.find((t) => t.id === current)?.label}>
        {current === 'overview' ? <Overview sandbox={sandbox} /> : null}
        {current === 'overview' && running ? <UsagePanel session={session} sandbox={sandbox} /> : null}
        {/* Ports and egress are records of the API, shown in any phase. */}
        {current !== 'overview' && current !== 'ports' && current !== 'egress' && !running ? (
          <p class="notice">The sandbox is {phaseOf(sandbox)}; this needs it Running.</p>
        ) : null}
        {current === 'terminal' && running ? (
          <Suspense fallback={<p>Loading the terminal…</p>}>
            <TerminalTab session={session} name={name} />
          </Suspense>
        ) : null}
        {current === 'files' && running ? <FilesTab session={session} name={name} /> : null}
        {current === 'ports' ? <PortsTab session={session} sandbox={sandbox} /> : null}
        {current === 'logs' && running ? <LogsTab session={session} name={name} /> : null}
        {current === 'egress' ? <EgressTab session={session} sandbox={sandbox} /> : null}
        {current === 'agent' && running ? <AgentTab session={session} name={name} /> : null}
      </section>
    </>
  );
}

function Overview({ sandbox }: { sandbox: Sandbox }) {
  const s = sandbox.status;
  return (
    <>
      <dl class="facts">
        <dt>Phase</dt>
        <dd>{phaseOf(sandbox)}</dd>
        <dt>Message</dt>
        <dd>{s?.message ?? '—'}</dd>
        <dt>Mode</dt>
        <dd>{sandbox.spec.mode ?? 'code'}</dd>
        <dt>Template</dt>
        <dd>{s?.resolvedTemplate ?? sandbox.spec.templateRef.name}</dd>
        <dt>Owner</dt>
        <dd>{sandbox.spec.createdBy ?? '—'}</dd>
        <dt>Timeout / idle</dt>
        <dd>
          {sandbox.spec.timeout ?? 'template default'} / {sandbox.spec.idleTimeout ?? 'template default'}
        </dd>
        {s?.clonedFrom ? (
          <>
            <dt>Cloned from</dt>
            <dd>{s.clonedFrom}</dd>
          </>
        ) : null}
        <dt>Created</dt>
        <dd>
          {typeof sandbox.metadata.creationTimestamp === 'string' ? sandbox.metadata.creationTimestamp : '—'}
        </dd>
      </dl>
      <h2>Conditions</h2>
      {s?.conditions && s.conditions.length > 0 ? (
        <div class="scroll">
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col">Reason</th>
                <th scope="col">Message</th>
                <th scope="col">Since</th>
              </tr>
            </thead>
            <tbody>
              {s.conditions.map((c) => (
                <tr key={c.type}>
                  <td>{c.type}</td>
                  <td>{c.status}</td>
                  <td>{c.reason}</td>
                  <td>{c.message}</td>
                  <td>{c.lastTransitionTime}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p>None yet.</p>
      )}
    </>
  );
}
