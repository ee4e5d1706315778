import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { Sandbox } from '../../core/index.ts';
import { TerminalStream } from '../../kube/index.ts';
import type { Caller } from '../auth/index.ts';
import type { TerminalDeps } from './deps.ts';
import { parseControl } from './checks.ts';
import type { TerminalMetrics, TerminalOutcome } from './metrics.ts';
import { recordActivity } from '../request/index.ts';

/** Output waiting for a slow client beyond this stops reading sandboxd until it drains. */
const HIGH_WATER = 1024 * 1024;
const LOW_WATER = 256 * 1024;
/** Keystrokes and output mark the sandbox active at most this often (it throttles too). */
const ACTIVITY_EVERY_MS = 30_000;

export interface SessionContext {
  deps: TerminalDeps;
  metrics: TerminalMetrics;
  sandbox: Sandbox;
  caller: Caller;
  template: string;
}

/**
 * Joins a client's WebSocket to a session sandboxd has opened. Binary frames are input,
 * text frames JSON control; output goes back as binary frames, and the shell's end as
 * `{"type":"exit","exitCode":N}` followed by close 1000. Either side closing ends the
 * other: a client that goes away makes sandboxd hang up the session's processes.
 */
export function runSession(
  ws: WebSocket,
  upstream: { socket: Duplex; head: Buffer },
  ctx: SessionContext,
): void {
  const { deps, metrics, sandbox, caller } = ctx;
  const started = performance.now();
  const { namespace = '', name = '' } = sandbox.metadata;
  let exitCode: number | undefined;
  let lastActivity = 0;
  const active = () => {
    const now = deps.clock().getTime();
    if (now - lastActivity < ACTIVITY_EVERY_MS) return;
    lastActivity = now;
    recordActivity(deps, deps.cache.get(namespace, name) ?? sandbox);
  };

  metrics.open.inc();
  void deps.audit
    .record({
      sandbox,
      reason: 'TerminalOpened',
      type: 'Normal',
      message: `terminal opened by ${caller.user}`,
      actor: caller.user,
    })
    .catch((err: unknown) => deps.logger.warn({ err }, 'recording TerminalOpened failed'));

  let paused = false;
  const term = new TerminalStream(upstream.socket, upstream.head, {
    output(bytes) {
      active();
      ws.send(bytes, { binary: true }, () => {
        if (paused && ws.bufferedAmount < LOW_WATER) {
          paused = false;
          term.resume();
        }
      });
      if (!paused && ws.bufferedAmount > HIGH_WATER) {
        paused = true;
        term.pause();
      }
    },
    exit(code) {
      exitCode = code;
      ws.send(JSON.stringify({ type: 'exit', exitCode: code }));
      ws.close(1000);
    },
  });

  ws.on('message', (data, isBinary) => {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    if (isBinary) {
      active();
      // Input waits in the socket while sandboxd is behind: stop reading the client meanwhile.
      if (!term.input(bytes)) {
        ws.pause();
        upstream.socket.once('drain', () => ws.resume());
      }
      return;
    }
    const control = parseControl(bytes.toString('utf8'));
    if ('error' in control) ws.send(JSON.stringify({ type: 'error', message: control.error }));
    else term.resize(control.cols, control.rows);
  });

  let ended = false;
  let closedByClient = false;
  const end = () => {
    if (ended) return;
    ended = true;
    metrics.open.dec();
    const outcome: TerminalOutcome =
      exitCode === undefined
        ? closedByClient
          ? 'closed'
          : 'error'
        : exitCode === 0
          ? 'completed'
          : 'failed';
    metrics.total.inc({ template: ctx.template, outcome });
    const seconds = (performance.now() - started) / 1000;
    void deps.audit
      .record({
        sandbox,
        reason: 'TerminalClosed',
        type: outcome === 'error' ? 'Warning' : 'Normal',
        message:
          `terminal of ${caller.user} closed after ${seconds.toFixed(1)} s: ` +
          (exitCode === undefined
            ? closedByClient
              ? 'closed by the client'
              : 'the sandbox ended it'
            : `exit code ${exitCode}`),
        actor: caller.user,
      })
      .catch((err: unknown) => deps.logger.warn({ err }, 'recording TerminalClosed failed'));
  };
  ws.on('close', () => {
    if (exitCode === undefined) closedByClient = true;
    term.close();
    end();
  });
  ws.on('error', () => ws.terminate());
  term.onClose(() => {
    if (exitCode === undefined && ws.readyState === ws.OPEN) ws.close(1011, 'the sandbox ended the session');
    if (ws.readyState !== ws.CLOSED) setTimeout(() => ws.terminate(), 5_000).unref();
  });
}
