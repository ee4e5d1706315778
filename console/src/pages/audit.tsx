import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Schemas } from '../../../clients/typescript/index.ts';
import { ErrorBox } from '../errors.tsx';
import type { Session } from '../main.tsx';

type Record_ = Schemas['AuditRecord'];
interface Filters {
  sandbox: string;
  reason: string;
  since: string;
}

export function AuditPage({ session }: { session: Session }) {
  const [filters, setFilters] = useState<Filters>({ sandbox: '', reason: '', since: '' });
  const [items, setItems] = useState<Record_[] | undefined>();
  const [next, setNext] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  // Only the latest request's answer is shown: an earlier, slower one (the unfiltered first
  // page) must not overwrite the filtered page that was asked for after it.
  const latest = useRef(0);
  const load = useCallback(
    async (cont?: string) => {
      const mine = ++latest.current;
      try {
        const page = await session.client.listAuditEvents({
          ...(filters.sandbox ? { sandbox: filters.sandbox } : {}),
          ...(filters.reason ? { reason: filters.reason } : {}),
          ...(filters.since ? { since: new Date(filters.since).toISOString() } : {}),
          ...(cont ? { continue: cont } : {}),
        });
        if (mine !== latest.current) return;
        setItems((cur) => (cont ? [...(cur ?? []), ...page.items] : page.items));
        setNext(page.continue);
        setError(undefined);
      } catch (err) {
        setError(err);
      }
    },
    [session, filters],
  );
  useEffect(() => void load(), [load]);
  return (
    <>
      <h1>Audit log</h1>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          const d = new FormData(e.currentTarget);
          setFilters({
            sandbox: text(d.get('sandbox')).trim(),
            reason: text(d.get('reason')).trim(),
            since: text(d.get('since')).trim(),
          });
        }}
      >
        <label for="f-sandbox">Sandbox</label>
        <input id="f-sandbox" name="sandbox" defaultValue={filters.sandbox} />
        <label for="f-reason">Reason</label>
        <input id="f-reason" name="reason" placeholder="e.g. InvokeCompleted" defaultValue={filters.reason} />
        <label for="f-since">Since</label>
        <input id="f-since" name="since" type="datetime-local" defaultValue={filters.since} />
        <button type="submit">Filter</button>
      </form>
      <ErrorBox error={error} />
      {items ? (
        <div class="scroll">
          <table class="list">
            <caption class="sr-only">Audit records, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Reason</th>
                <th scope="col">Sandbox</th>
                <th scope="col">Actor</th>
                <th scope="col">Message</th>
              </tr>
            </thead>
            <tbody>
              {items.map((r) => (
                <tr key={r.id} class={r.type === 'Warning' ? 'warning' : undefined}>
                  <td>{new Date(r.time).toLocaleString()}</td>
                  <td>{r.reason}</td>
                  <td>{r.sandbox}</td>
                  <td>{r.actor ?? ''}</td>
                  <td>{r.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {items && items.length === 0 ? <p>No records match.</p> : null}
      {next ? (
        <button type="button" onClick={() => void load(next)}>
          More
        </button>
      ) : null}
    </>
  );
}

const text = (v: FormDataEntryValue | null) => (typeof v === 'string' ? v : '');
