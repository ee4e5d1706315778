import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../../../clients/typescript/index.ts';
import { ErrorBox, useAction } from '../errors.tsx';
import type { Session } from '../main.tsx';
import { go, href } from '../router.ts';

/** The policy fields the form reads. */
interface RuntimePolicy {
  allowedRuntimeClasses?: string[];
  defaultRuntimeClass?: string;
}

export function CreatePage({ session }: { session: Session }) {
  const [templates, setTemplates] = useState<Schemas['Template'][] | undefined>();
  const [name, setName] = useState('');
  const [template, setTemplate] = useState('');
  const [mode, setMode] = useState<'code' | 'agent'>('code');
  const [timeout, setTimeoutValue] = useState('');
  const [idleTimeout, setIdleTimeout] = useState('');
  const [runtimeClass, setRuntimeClass] = useState('');
  const [policy, setPolicy] = useState<RuntimePolicy>({});
  const { error, setError, busy, act } = useAction();
  useEffect(() => {
    session.client
      .listTemplates()
      .then(({ templates: t }) => {
        setTemplates(t);
        if (t[0]) setTemplate((cur) => cur || t[0]!.name);
      })
      .catch((err: unknown) => {
        setTemplates([]);
        setError(err);
      });
    // What the policy says of runtime classes: a default, and whether a sandbox may choose.
    session.client
      .getEffectivePolicy()
      .then(({ policy: p }) => setPolicy(p))
      .catch(() => setPolicy({}));
  }, [session]);
  const chosen = templates?.find((t) => t.name === template);
  const own = chosen?.spec.runtimeClassName;
  const templateClass = (typeof own === 'string' ? own : policy.defaultRuntimeClass) ?? 'node default';
  const submit = async (e: Event) => {
    e.preventDefault();
    await act(async () => {
      const created = await session.client.createSandbox({
        name: name.trim(),
        mode,
        templateRef: { name: template, ...(chosen ? { kind: chosen.kind } : {}) },
        ...(timeout.trim() ? { timeout: timeout.trim() } : {}),
        ...(idleTimeout.trim() ? { idleTimeout: idleTimeout.trim() } : {}),
        ...(runtimeClass ? { runtimeClassName: runtimeClass } : {}),
      });
      go(href.sandbox(created.metadata.name));
    });
  };
  return (
    <>
      <h1>New sandbox</h1>
      <form class="form" onSubmit={(e) => void submit(e)}>
        <label for="name">Name</label>
        <input
          id="name"
          required
          pattern="[a-z0-9]([a-z0-9-]*[a-z0-9])?"
          maxLength={53}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          aria-describedby="name-hint"
        />
        <p id="name-hint" class="hint">
          Lower-case letters, digits and dashes.
        </p>
        <label for="template">Template</label>
        {templates === undefined ? (
          <select id="template" disabled>
            <option>Loading templates…</option>
          </select>
        ) : templates.length > 0 ? (
          <select id="template" value={template} onChange={(e) => setTemplate(e.currentTarget.value)}>
            {templates.map((t) => (
              <option key={`${t.kind}/${t.name}`} value={t.name}>
                {t.name}
                {t.description ? ` — ${t.description}` : ''}
              </option>
            ))}
          </select>
        ) : (
          <input
            id="template"
            required
            value={template}
            onInput={(e) => setTemplate(e.currentTarget.value)}
          />
        )}
        <label for="runtime-class">Runtime class</label>
        {policy.allowedRuntimeClasses ? (
          <select
            id="runtime-class"
            value={runtimeClass}
            onChange={(e) => setRuntimeClass(e.currentTarget.value)}
            aria-describedby="runtime-class-hint"
          >
            <option value="">The template's ({templateClass})</option>
            {policy.allowedRuntimeClasses.map((rc) => (
              <option key={rc} value={rc}>
                {rc}
              </option>
            ))}
          </select>
        ) : (
          <input id="runtime-class" readOnly value={templateClass} aria-describedby="runtime-class-hint" />
        )}
        <p id="runtime-class-hint" class="hint">
          How the sandbox is isolated from the node (such as gvisor): the template's, or the policy's default.
        </p>
        <fieldset>
          <legend>Mode</legend>
          <label class="inline">
            <input
              type="radio"
              name="mode"
              value="code"
              checked={mode === 'code'}
              onChange={() => setMode('code')}
            />
            Code (terminal, files, exec)
          </label>
          <label class="inline">
            <input
              type="radio"
              name="mode"
              value="agent"
              checked={mode === 'agent'}
              onChange={() => setMode('agent')}
            />
            Agent (configure, invoke)
          </label>
        </fieldset>
        <label for="timeout">Timeout (optional, e.g. 8h)</label>
        <input id="timeout" value={timeout} onInput={(e) => setTimeoutValue(e.currentTarget.value)} />
        <label for="idle-timeout">Idle timeout (optional, e.g. 30m)</label>
        <input id="idle-timeout" value={idleTimeout} onInput={(e) => setIdleTimeout(e.currentTarget.value)} />
        <div>
          <button type="submit" class="primary" disabled={busy}>
            Create
          </button>
        </div>
      </form>
      <ErrorBox error={error} />
    </>
  );
}
