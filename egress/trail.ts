import type { Outcome } from './gateway.ts';

/** One audit record: one connection, or a window's worth of like ones summed. */
export interface EgressRecord {
  namespace: string;
  sandbox: string;
  template: string;
  /** The Sandbox's uid and owner, for its Event. */
  uid?: string;
  owner?: string;
  host: string;
  port: number;
  allowed: boolean;
  /** Why it was refused (the line the tool saw); absent when allowed. */
  reason?: string;
  /** Connections this record stands for: 1, or more in a summary. */
  connections: number;
  bytesOut: number;
  bytesIn: number;
  durationMs: number;
  /** A summary of the connections after the first in a window, not one connection. */
  summary: boolean;
}

export interface TrailOptions {
  /** How long like connections after a first one are summed before one summary is written. */
  windowMs: number;
  write: (record: EgressRecord) => void;
}

interface Window {
  pending: EgressRecord | undefined;
  timer: NodeJS.Timeout;
}

/**
 * Keeps the trail bounded: the first connection of a sandbox to a host with one decision is
 * a record of its own at once; the like ones after it within `windowMs` become one summary
 * (their count, bytes and time summed) when the window closes. A sandbox opening a thousand
 * connections to one host writes two records a window, not a thousand.
 */
export class EgressTrail {
  readonly #windows = new Map<string, Window>();
  readonly #opts: TrailOptions;

  constructor(opts: TrailOptions) {
    this.#opts = opts;
  }

  add(outcome: Outcome): void {
    if (!outcome.asker) return;
    const record: EgressRecord = {
      namespace: outcome.asker.namespace,
      sandbox: outcome.asker.sandbox,
      template: outcome.asker.template,
      ...(outcome.asker.uid === undefined ? {} : { uid: outcome.asker.uid }),
      ...(outcome.asker.owner === undefined ? {} : { owner: outcome.asker.owner }),
      host: outcome.host,
      port: outcome.port,
      allowed: outcome.allowed,
      ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
      connections: 1,
      bytesOut: outcome.bytesOut,
      bytesIn: outcome.bytesIn,
      durationMs: outcome.durationMs,
      summary: false,
    };
    // The reason is part of the key: a refusal by SNI is not summed into one by host.
    const key = JSON.stringify([
      record.namespace,
      record.sandbox,
      record.host,
      record.port,
      record.reason ?? '',
    ]);
    const open = this.#windows.get(key);
    if (!open) {
      this.#opts.write(record);
      const timer = setTimeout(() => this.#close(key), this.#opts.windowMs);
      timer.unref();
      this.#windows.set(key, { pending: undefined, timer });
      return;
    }
    const p = open.pending;
    open.pending = p
      ? {
          ...p,
          connections: p.connections + 1,
          bytesOut: p.bytesOut + record.bytesOut,
          bytesIn: p.bytesIn + record.bytesIn,
          durationMs: p.durationMs + record.durationMs,
        }
      : { ...record, summary: true };
  }

  /** Writes every pending summary now (at shutdown). */
  flush(): void {
    for (const key of [...this.#windows.keys()]) this.#close(key);
  }

  #close(key: string): void {
    const open = this.#windows.get(key);
    if (!open) return;
    clearTimeout(open.timer);
    this.#windows.delete(key);
    if (open.pending) this.#opts.write(open.pending);
  }
}
