// A streaming answer (configure, invoke) as an async iterator of typed events. It reads the
// body with getReader(), which every browser and Node 20+ has (async iteration of a
// ReadableStream is not in every browser yet).
import { SseParser } from '../../core/sse/parser.ts';

/**
 * One event of a stream whose event map is `M`: its name, its parsed, typed data, and its
 * `id` when the server numbered it (a run's events: resume after it with Last-Event-ID).
 */
export type StreamEvent<M> = { [K in keyof M & string]: { event: K; data: M[K]; id?: string } }[keyof M &
  string];

export class EventStream<M> implements AsyncIterable<StreamEvent<M>> {
  readonly #body: ReadableStream<Uint8Array>;
  readonly #names: readonly string[];
  readonly #ids: boolean;
  readonly #signal: AbortSignal | undefined;
  #iterated = false;

  /**
   * `names`: the events this stream's operation documents; others (newer servers') are
   * skipped. `ids`: each event carries its `id` (a run's events stream; an invoke's or
   * exec's events are numbered too, the n-th having id n, but keep their `{event, data}` shape).
   * `signal`: the call's; aborting it ends the stream here too. fetch alone is not enough:
   * Node's fetch follows a Request's signal through a weak reference, lost once that Request
   * is collected, and then an abort leaves the connection open (nodejs/node#55428). The
   * listener added here is held by the signal, which the caller holds.
   */
  constructor(
    body: ReadableStream<Uint8Array>,
    names: readonly (keyof M & string)[],
    opts: { ids?: boolean; signal?: AbortSignal | undefined } = {},
  ) {
    this.#body = body;
    this.#names = names;
    this.#ids = opts.ids ?? false;
    this.#signal = opts.signal;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<StreamEvent<M>, void, undefined> {
    if (this.#iterated) throw new Error('an event stream can be iterated once');
    this.#iterated = true;
    const reader = this.#body.getReader();
    const signal = this.#signal;
    // Cancelling ends a pending read with `done`; the loop then throws the abort's reason, as
    // a fetch body errored by its signal does.
    const onAbort = () => void reader.cancel(signal?.reason).catch(() => undefined);
    signal?.addEventListener('abort', onAbort, { once: true });
    const parser = new SseParser({ ids: this.#ids });
    const decoder = new TextDecoder();
    let done = false;
    // A chunk ending in CR is held back until the next one: its LF may follow, and the
    // parser would read a CR and then an LF seen apart as two line ends.
    let held = '';
    try {
      signal?.throwIfAborted();
      while (!done) {
        const chunk = await reader.read();
        signal?.throwIfAborted();
        done = chunk.done;
        let text = held + (chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true }));
        held = '';
        if (!done && text.endsWith('\r')) {
          held = '\r';
          text = text.slice(0, -1);
        }
        for (const m of parser.push(text)) {
          if (!this.#names.includes(m.event)) continue;
          let data: unknown;
          try {
            data = JSON.parse(m.data);
          } catch {
            throw new Error(`the data of a ${m.event} event is not JSON: ${m.data.slice(0, 200)}`);
          }
          yield (
            m.id === undefined ? { event: m.event, data } : { event: m.event, data, id: m.id }
          ) as StreamEvent<M>;
        }
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      // Leaving the loop early (break, throw) closes the connection; for an invoke the
      // server then ends the run, as a disconnected client does.
      if (!done) await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    }
  }

  /** Closes the stream without reading it (before or instead of iterating). */
  async cancel(): Promise<void> {
    if (!this.#iterated) await this.#body.cancel();
  }

  /** Every event, in order, once the stream ends. */
  async toArray(): Promise<StreamEvent<M>[]> {
    const out: StreamEvent<M>[] = [];
    for await (const e of this) out.push(e);
    return out;
  }
}
