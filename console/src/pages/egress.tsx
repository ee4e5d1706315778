import { useEffect, useState } from 'preact/hooks';
import type { Sandbox, Schemas } from '../../../clients/typescript/index.ts';
import { ErrorBox } from '../errors.tsx';
import type { Session } from '../main.tsx';
import { href } from '../router.ts';
import { bytes } from './usage.tsx';

type Record_ = Schemas['AuditRecord'];

/**
 * How often the records are asked for again while the tab is shown and the browser tab
 * visible: the API has no watch of audit records, and the gateway writes at most two records
 * a window (60 s by default) for each host a sandbox uses.
 */
const REFRESH_MS = 5_000;
/** The newest this many; the audit log pages through the rest. */
const LIMIT = 50;

/** The template's network, as far as the egress tab needs it; `unknown` when it cannot be read. */
type Network = { egress: string; allowedHosts: string[] } | 'unknown';

/**
 * The egress gateway's decisions for this sandbox (`GET /audit/events?category=egress`),
 * newest first: host and port, allowed or denied, connections, bytes each way, when. Only a
 * sandbox whose template's egress is `allowlist` goes through the gateway; any other gets a
 * line saying so. The gateway never sees paths, headers or bodies, so there are none to show.
 */
export function EgressTab({ session, sandbox }: { session: Session; sandbox: Sandbox }) {
  const name = sandbox.metadata.name;
  const ref = sandbox.spec.templateRef;
  const [network, setNetwork] = useState<Network>();
  useEffect(() => {
    const stop = new AbortController();
    session.client
      .getTemplate(ref.name, { ...(ref.kind ? { kind: ref.kind } : {}), signal: stop.signal })
      .then((t) => setNetwork(networkOf(t.spec)))
      // A template the caller may no longer use (or that is gone) cannot be read: the records
      // are still the sandbox's, so they are shown.
      .catch(() => {
        if (!stop.signal.aborted) setNetwork('unknown');
      });
    return () => stop.abort();
  }, [session, ref.name, ref.kind]);

  const gated = network !== undefined && (network === 'unknown' || network.egress === 'allowlist');
  const [items, setItems] = useState<Record_[]>();
  const [more, setMore] = useState(false);
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    if (!gated) return;
    const stop = new AbortController();
    const timer: { id?: ReturnType<typeof setTimeout> } = {};
    const load = async () => {
      if (document.visibilityState === 'visible') {
        try {
          const page = await session.client.listAuditEvents({
            sandbox: name,
            category: 'egress',
            limit: LIMIT,
            signal: stop.signal,
          });
          setItems(page.items);
          setMore(page.continue !== undefined);
          setError(undefined);
        } catch (err) {
          if (stop.signal.aborted) return;
          setError(err);
        }
      }
      if (!stop.signal.aborted) timer.id = setTimeout(() => void load(), REFRESH_MS);
    };
    // Back to a hidden browser tab: asked at once rather than at the next tick.
    const onVisible = () => {
      if (document.visibilityState !== 'visible') return;
      clearTimeout(timer.id);
      void load();
    };
    document.addEventListener('visibilitychange', onVisible);
    void load();
    return () => {
      stop.abort();
      clearTimeout(timer.id);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [session, name, gated]);

  if (network === undefined) return <p>Loading…</p>;
  const own = sandbox.spec.network?.allowedHosts;
  const hosts = own ?? (network === 'unknown' ? undefined : network.allowedHosts);
  return (
    <>
      <h2>Egress decisions</h2>
      {network !== 'unknown' && network.egress !== 'allowlist' ? (
        <p data-empty="not-allowlist">
          The template {ref.name} has egress <code>{network.egress}</code>: this sandbox connects without the
          egress gateway, so no decisions are recorded. Only a template with egress <code>allowlist</code>{' '}
          sends its sandboxes' connections through the gateway.
        </p>
      ) : (
        <>
          <p class="hint">
            Through the egress gateway, to{' '}
            {hosts && hosts.length > 0 ? (
              hosts.map((h, i) => (
                <span key={h}>
                  {i > 0 ? ', ' : ''}
                  <code>{h}</code>
                </span>
              ))
            ) : (
              <>no host</>
            )}
            {own ? " (its own list, inside its template's)" : ''}. Each connection's host and port, the
            decision and the bytes each way; never a path, header or body. Like connections after the first
            within a window are summed into one row.
          </p>
          <ErrorBox error={error} />
          {items && items.length > 0 ? <Decisions items={items} /> : null}
          {items && items.length === 0 ? <p data-empty="none-yet">No egress decisions yet.</p> : null}
          {!items && !error ? <p>Loading…</p> : null}
          {more ? (
            <p class="hint">
              The newest {LIMIT}; the <a href={href.audit()}>audit log</a> has the older ones.
            </p>
          ) : null}
        </>
      )}
    </>
  );
}

function Decisions({ items }: { items: Record_[] }) {
  return (
    <div class="scroll">
      <table class="list egress">
        <caption class="sr-only">Egress decisions, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Host</th>
            <th scope="col">Decision</th>
            <th scope="col">Connections</th>
            <th scope="col" class="nowrap">
              Bytes out
            </th>
            <th scope="col" class="nowrap">
              Bytes in
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((r) => {
            const e = r.egress;
            if (!e) {
              // A record the API could not read figures from: its message is all there is.
              return (
                <tr key={r.id} data-decision="unknown">
                  <td data-label="Time" class="nowrap">
                    {when(r.time)}
                  </td>
                  <td data-label="Record" colSpan={5}>
                    {r.message}
                  </td>
                </tr>
              );
            }
            const denied = e.decision === 'denied';
            return (
              <tr key={r.id} class={denied ? 'denied' : undefined} data-decision={e.decision}>
                <td data-label="Time" class="nowrap">
                  {when(r.time)}
                </td>
                <td data-label="Host">
                  <code>
                    {e.host}:{e.port}
                  </code>
                </td>
                <td data-label="Decision">
                  <span class={`badge decision-${e.decision}`}>{denied ? 'Denied' : 'Allowed'}</span>
                  {e.reason ? <div class="reason">{e.reason}</div> : null}
                </td>
                <td data-label="Connections">
                  {e.summary ? (
                    <>
                      {e.connections} more
                      <div class="hint">summed over the window</div>
                    </>
                  ) : (
                    e.connections
                  )}
                </td>
                <td data-label="Bytes out" class="nowrap">
                  {bytes(e.bytesOut)}
                </td>
                <td data-label="Bytes in" class="nowrap">
                  {bytes(e.bytesIn)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function when(iso: string) {
  return <time dateTime={iso}>{new Date(iso).toLocaleString()}</time>;
}

function networkOf(spec: Record<string, unknown>): Network {
  const n = (spec.network ?? {}) as { egress?: unknown; allowedHosts?: unknown };
  return {
    egress: typeof n.egress === 'string' ? n.egress : 'internet',
    allowedHosts: Array.isArray(n.allowedHosts) ? n.allowedHosts.filter((h) => typeof h === 'string') : [],
  };
}
