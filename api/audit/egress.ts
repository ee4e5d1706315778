import { EgressReasons } from '../../core/index.ts';

/** What an egress record says, as fields: the gateway's decision on one host and port. */
export interface EgressFigures {
  host: string;
  port: number;
  decision: 'allowed' | 'denied';
  /** Connections the record stands for: 1, or those after the first in a window when `summary`. */
  connections: number;
  summary: boolean;
  bytesOut: number;
  bytesIn: number;
  durationMs: number;
  /** The one line a refused tool saw; null when allowed. */
  reason: string | null;
}

// The gateway's Event message (egress/audit.ts describeRecord), e.g.
// `pypi.org:443 allowed: 1 connection, 517 bytes out, 4096 bytes in, 35 ms` or
// `x.io:443 denied: 3 more connections in the window, 0 bytes out, 0 bytes in, 2 ms; svc egress: …`.
// A host has no space, so the port is the last `:digits` before the first space.
const MESSAGE =
  /^(\S+):(\d+) (allowed|denied): (?:(\d+) more connections in the window|(\d+) connections?), (\d+) bytes out, (\d+) bytes in, (\d+) ms(?:; ([\s\S]*))?$/;

const REASONS = new Set<string>(Object.values(EgressReasons));

/**
 * The figures of an egress gateway's record, read back from its Event (the Event carries them
 * only in its message); undefined for any other record, or a message not in that form.
 * @example egressFigures('EgressAllowed', 'pypi.org:443 allowed: 1 connection, 517 bytes out, 4096 bytes in, 35 ms')
 *   // { host: 'pypi.org', port: 443, decision: 'allowed', connections: 1, summary: false, bytesOut: 517, … }
 */
export function egressFigures(reason: string, message: string): EgressFigures | undefined {
  if (!REASONS.has(reason)) return undefined;
  const m = MESSAGE.exec(message);
  if (!m) return undefined;
  const [, host, port, decision, more, one, out, into, ms, why] = m;
  return {
    host: host!,
    port: Number(port),
    decision: decision as 'allowed' | 'denied',
    connections: Number(more ?? one),
    summary: more !== undefined,
    bytesOut: Number(out),
    bytesIn: Number(into),
    durationMs: Number(ms),
    reason: why ?? null,
  };
}
