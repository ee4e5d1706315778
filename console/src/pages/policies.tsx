import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../../../clients/typescript/index.ts';
import { ErrorBox } from '../errors.tsx';
import type { Session } from '../main.tsx';

type Policy = Schemas['Policy'];
type Field = keyof Policy;

/** The policy's fields as the form edits them (the API validates each on save). */
const FIELDS: { name: Field; label: string; kind: 'int' | 'text' | 'list'; hint: string }[] = [
  { name: 'maxSandboxesPerUser', label: 'Max sandboxes per user', kind: 'int', hint: 'a count' },
  { name: 'maxSandboxesTotal', label: 'Max sandboxes in total', kind: 'int', hint: 'a count' },
  { name: 'maxCpu', label: 'Max CPU', kind: 'text', hint: 'a quantity, e.g. 2 or 500m' },
  { name: 'maxMemory', label: 'Max memory', kind: 'text', hint: 'a quantity, e.g. 4Gi' },
  { name: 'maxStorage', label: 'Max storage', kind: 'text', hint: 'a quantity, e.g. 20Gi' },
  {
    name: 'maxEphemeralStorage',
    label: 'Max ephemeral storage',
    kind: 'text',
    hint: 'a quantity, e.g. 10Gi',
  },
  { name: 'maxTimeout', label: 'Max timeout', kind: 'text', hint: 'a duration, e.g. 8h' },
  { name: 'maxIdleTimeout', label: 'Max idle timeout', kind: 'text', hint: 'a duration, e.g. 30m' },
  {
    name: 'allowedTemplates',
    label: 'Allowed templates',
    kind: 'list',
    hint: 'names (ClusterSandboxTemplates) or SandboxTemplate/<name>, comma-separated',
  },
  {
    name: 'approvedRegistries',
    label: 'Approved registries',
    kind: 'list',
    hint: 'prefixes, comma-separated',
  },
  { name: 'maxAgentSandboxes', label: 'Max agent sandboxes', kind: 'int', hint: 'a count' },
  {
    name: 'allowedAgentImages',
    label: 'Allowed agent images',
    kind: 'list',
    hint: 'prefixes, comma-separated',
  },
  {
    name: 'maxConcurrentInvokesPerSandbox',
    label: 'Max concurrent invokes per sandbox',
    kind: 'int',
    hint: 'a count',
  },
];

const empty = (v: unknown) => v === undefined || v === '' || (Array.isArray(v) && v.length === 0);
const show = (v: unknown) => (empty(v) ? '—' : Array.isArray(v) ? v.join(', ') : String(v));

export function PoliciesPage({ session }: { session: Session }) {
  const { client } = session;
  const [stored, setStored] = useState<Schemas['StoredPolicies'] | undefined>();
  const [effective, setEffective] = useState<Schemas['EffectivePolicy'] | undefined>();
  const [namespace, setNamespace] = useState('');
  const [error, setError] = useState<unknown>();
  const load = useCallback(async () => {
    try {
      const [s, e] = await Promise.all([
        client.getPolicies(),
        client.getEffectivePolicy(namespace ? { namespace } : {}),
      ]);
      setStored(s);
      setEffective(e);
      setError(undefined);
    } catch (err) {
      setError(err);
    }
  }, [client, namespace]);
  useEffect(() => void load(), [load]);
  if (!stored || !effective) {
    return (
      <>
        <h1>Governance policies</h1>
        {error ? <ErrorBox error={error} /> : <p>Loading…</p>}
      </>
    );
  }
  const ns = effective.namespace;
  const override = stored.namespaces[ns];
  return (
    <>
      <h1>Governance policies</h1>
      <ErrorBox error={error} />
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          const value = new FormData(e.currentTarget).get('ns');
          setNamespace(typeof value === 'string' ? value.trim() : '');
        }}
      >
        <label for="ns">Namespace</label>
        <input id="ns" name="ns" list="known-namespaces" defaultValue={ns} />
        <datalist id="known-namespaces">
          {Object.keys(stored.namespaces).map((n) => (
            <option key={n} value={n} />
          ))}
        </datalist>
        <button type="submit">Show</button>
      </form>
      <table class="policy">
        <caption>
          In namespace <code>{ns}</code> each field is the namespace's override, else the cluster default
        </caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Cluster default</th>
            <th scope="col">Namespace override</th>
            <th scope="col">Effective</th>
            <th scope="col">From</th>
          </tr>
        </thead>
        <tbody>
          {FIELDS.map((f) => {
            const own = override?.[f.name];
            const base = stored.cluster?.[f.name];
            const eff = effective.policy[f.name];
            return (
              <tr key={f.name} data-field={f.name}>
                <th scope="row">{f.label}</th>
                <td>{show(base)}</td>
                <td>{show(own)}</td>
                <td data-effective={f.name}>{show(eff)}</td>
                <td>{empty(eff) ? 'unlimited' : empty(own) ? 'cluster' : 'namespace'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <div class="columns">
        <PolicyForm
          title="Cluster default"
          id="cluster"
          policy={stored.cluster ?? {}}
          onSave={async (p) => {
            await client.setClusterPolicy(p);
            await load();
          }}
        />
        <PolicyForm
          title={`Override for namespace ${ns}`}
          id="namespace"
          policy={override ?? {}}
          onSave={async (p) => {
            await client.setNamespacePolicy(ns, p);
            await load();
          }}
          onRemove={
            override
              ? async () => {
                  await client.deleteNamespacePolicy(ns);
                  await load();
                }
              : undefined
          }
        />
      </div>
    </>
  );
}

function PolicyForm(props: {
  title: string;
  id: string;
  policy: Policy;
  onSave: (p: Policy) => Promise<void>;
  onRemove?: (() => Promise<void>) | undefined;
}) {
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const policy: Record<string, unknown> = {};
    for (const f of FIELDS) {
      const v = data.get(f.name);
      const raw = (typeof v === 'string' ? v : '').trim();
      if (raw === '') continue;
      policy[f.name] =
        f.kind === 'int'
          ? Number(raw)
          : f.kind === 'list'
            ? raw
                .split(',')
                .map((x) => x.trim())
                .filter(Boolean)
            : raw;
    }
    setError(undefined);
    setSaved(false);
    try {
      await props.onSave(policy);
      setSaved(true);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="form" aria-labelledby={`${props.id}-title`} onSubmit={(e) => void submit(e)}>
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      {FIELDS.map((f) => (
        <div key={f.name}>
          <label for={`${props.id}-${f.name}`}>{f.label}</label>
          <input
            id={`${props.id}-${f.name}`}
            name={f.name}
            inputMode={f.kind === 'int' ? 'numeric' : undefined}
            placeholder={f.hint}
            defaultValue={empty(props.policy[f.name]) ? '' : show(props.policy[f.name])}
          />
        </div>
      ))}
      <div class="actions">
        <button type="submit" class="primary">
          Save {props.id === 'cluster' ? 'cluster default' : 'namespace override'}
        </button>
        {props.onRemove ? (
          <button type="button" class="danger" onClick={() => void props.onRemove!().catch(setError)}>
            Remove override
          </button>
        ) : null}
        {saved ? <span role="status">Saved.</span> : null}
      </div>
      <ErrorBox error={error} />
    </form>
  );
}
