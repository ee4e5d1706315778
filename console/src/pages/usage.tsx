import { useEffect, useState } from 'preact/hooks';
import type { Sandbox, SandboxUsage } from '../../../clients/typescript/index.ts';
import { ErrorBox } from '../errors.tsx';
import type { Session } from '../main.tsx';

/** How much of the past the charts show. */
const WINDOW_S = 300;

interface Point {
  at: number;
  cpu: number;
  memory: number;
}

/**
 * The sandbox's usage on its overview: the last five minutes of CPU and memory as two small
 * charts (inline SVG: no chart library in the bundle), then disk, processes, runs and
 * terminals. The history comes once with `?history=300`; the figures then arrive every 2 s
 * over SSE. Looking is no activity: this page never keeps a sandbox from its idleTimeout.
 */
export function UsagePanel({ session, sandbox }: { session: Session; sandbox: Sandbox }) {
  const name = sandbox.metadata.name ?? '';
  const [points, setPoints] = useState<Point[]>([]);
  const [now, setNow] = useState<SandboxUsage>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    const stop = new AbortController();
    setPoints([]);
    (async () => {
      const first = await session.client.getSandboxUsage(name, { history: WINDOW_S, signal: stop.signal });
      setNow(first);
      setPoints(
        (first.history ?? []).map((s) => ({ at: Date.parse(s.at), cpu: s.cpuCores, memory: s.memoryBytes })),
      );
      const stream = await session.client.watchSandboxUsage(name, { signal: stop.signal });
      for await (const ev of stream) {
        const u = ev.data;
        setNow(u);
        const at = Date.parse(u.at);
        setPoints((p) => [
          ...p.filter((x) => x.at > at - WINDOW_S * 1000 && x.at < at),
          { at, cpu: u.cpu.cores, memory: u.memory.workingSetBytes },
        ]);
      }
    })().catch((err: unknown) => {
      if (!stop.signal.aborted) setError(err);
    });
    return () => stop.abort();
  }, [session, name]);
  const status = sandbox.status;
  return (
    <section aria-label="Usage">
      <h2>Usage</h2>
      <ErrorBox error={error} />
      {now ? (
        <>
          <div class="charts">
            <Chart
              title="CPU (cores)"
              points={points.map((p) => [p.at, p.cpu])}
              limit={now.cpu.limitCores}
              format={(v) => v.toFixed(2)}
            />
            <Chart
              title="Memory (working set)"
              points={points.map((p) => [p.at, p.memory])}
              limit={now.memory.limitBytes}
              format={bytes}
            />
          </div>
          <dl class="facts">
            <dt>Disk (/workspace)</dt>
            <dd>
              {bytes(now.workspace.usedBytes)} used, {bytes(now.workspace.freeBytes)} free
            </dd>
            <dt>Processes</dt>
            <dd>{now.processes}</dd>
            <dt>Runs</dt>
            <dd>
              {now.runs.exec} exec, {now.runs.invoke} invoke, {now.runs.configure} configure
            </dd>
            <dt>Terminals</dt>
            <dd>{now.terminals}</dd>
            <dt>Last activity</dt>
            <dd>
              {status?.lastActivityAt ?? '—'}
              {status?.activeReasons?.length ? ` (${status.activeReasons.join(', ')})` : ''}
            </dd>
          </dl>
        </>
      ) : error ? null : (
        <p>Loading…</p>
      )}
    </section>
  );
}

const W = 320;
const H = 96;

/** A line over the last five minutes, its scale from 0 to the larger of the peak and the limit. */
function Chart(props: {
  title: string;
  points: [number, number][];
  limit: number | null;
  format: (v: number) => string;
}) {
  const { points, format } = props;
  const last = points.at(-1);
  const end = last?.[0] ?? Date.now();
  const peak = Math.max(...points.map((p) => p[1]), 0);
  const top = Math.max(peak, props.limit ?? 0) * 1.1 || 1;
  const x = (t: number) => W - ((end - t) / (WINDOW_S * 1000)) * W;
  const y = (v: number) => H - (v / top) * H;
  const line = points.map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const label = `${props.title}: now ${last ? format(last[1]) : '—'}, peak ${format(peak)} over the last 5 minutes`;
  return (
    <figure class="chart">
      <figcaption>
        {props.title}: <strong>{last ? format(last[1]) : '—'}</strong>
        <span class="muted"> peak {format(peak)}</span>
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label} preserveAspectRatio="none">
        <line class="axis" x1="0" y1={H} x2={W} y2={H} />
        {props.limit ? <line class="limit" x1="0" y1={y(props.limit)} x2={W} y2={y(props.limit)} /> : null}
        {points.length > 1 ? <polyline class="series" points={line} /> : null}
      </svg>
      <div class="chart-scale muted" aria-hidden="true">
        <span>−5 min</span>
        <span>now</span>
      </div>
    </figure>
  );
}

/** A byte count for people: `517 B`, `4.0 KiB`, `118 MiB`. */
export function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 100 || i === 0 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}
