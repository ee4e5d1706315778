import type { ServerResponse } from 'node:http';
import { StringDecoder } from 'node:string_decoder';

/** Output waiting to be sent is flushed at this size, or this long after it arrived. */
const COALESCE_BYTES = 64 * 1024;
const COALESCE_MS = 2;

/**
 * Sees every frame a writer sends except keepalives, even after its client is gone, so a run's
 * output can reach other readers. `outputBytes` is set on `log` frames only.
 */
export type SseTap = (frame: string, outputBytes?: number) => void;

/** One SSE frame: a named event with JSON data. */
export function sseFrame(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Server-Sent Events on a response: named events with JSON data, a keepalive comment on an
 * idle stream, and process output coalesced per stream so a fast writer does not become one
 * event per byte. Each stream has its own UTF-8 decoder: a character split across two reads
 * is sent whole.
 */
export class SseWriter {
  readonly #res: ServerResponse;
  readonly #keepalive: NodeJS.Timeout;
  readonly #decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
  #buffered: { stream: 'stdout' | 'stderr'; text: string } | undefined;
  #scheduled = false;
  #closed = false;
  #tap: SseTap | undefined;

  constructor(res: ServerResponse, keepaliveMs: number) {
    this.#res = res;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    this.#keepalive = setInterval(() => this.#write(': keepalive\n\n'), keepaliveMs);
    res.on('close', () => this.close());
  }

  /** Sends a named event; returns false when the client is slow (wait for `drain`). */
  event(name: string, data: unknown): boolean {
    this.flush();
    return this.#send(sseFrame(name, data));
  }

  /** Sends a frame serialized elsewhere (a replay of another writer's frames). */
  frame(text: string): boolean {
    this.flush();
    return this.#send(text);
  }

  /** Hands every frame sent from now on to `tap` too. */
  observe(tap: SseTap): void {
    this.#tap = tap;
  }

  /** Queues output bytes; returns false when the caller should pause until `drain`. */
  output(stream: 'stdout' | 'stderr', chunk: Buffer): boolean {
    const text = this.#decoders[stream].write(chunk);
    if (text === '') return true;
    if (this.#buffered && this.#buffered.stream !== stream) this.flush();
    this.#buffered = { stream, text: (this.#buffered?.text ?? '') + text };
    if (this.#buffered.text.length >= COALESCE_BYTES) return this.flush();
    if (!this.#scheduled) {
      // A writer that prints a few bytes at a time becomes one event per 2 ms, not per write.
      this.#scheduled = true;
      setTimeout(() => {
        this.#scheduled = false;
        this.flush();
      }, COALESCE_MS);
    }
    return !this.#res.writableNeedDrain;
  }

  /** Sends what is queued, plus any bytes a decoder still holds when `final`. */
  flush(final = false): boolean {
    if (final) {
      for (const stream of ['stdout', 'stderr'] as const) {
        const rest = this.#decoders[stream].end();
        if (rest) {
          if (this.#buffered && this.#buffered.stream !== stream) this.flush();
          this.#buffered = { stream, text: (this.#buffered?.text ?? '') + rest };
        }
      }
    }
    const pending = this.#buffered;
    this.#buffered = undefined;
    if (!pending) return !this.#res.writableNeedDrain;
    // Only a tapped stream (an install run) needs the byte count: skip the extra pass otherwise.
    return this.#send(
      sseFrame('log', { stream: pending.stream, data: pending.text }),
      this.#tap ? Buffer.byteLength(pending.text) : 0,
    );
  }

  onDrain(listener: () => void): void {
    this.#res.on('drain', listener);
    // A closed response never drains; a paused run must still reach its exit for the tap.
    this.#res.on('close', listener);
  }

  end(): void {
    this.close();
    this.#res.end();
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#keepalive);
  }

  #send(frame: string, outputBytes?: number): boolean {
    this.#tap?.(frame, outputBytes);
    return this.#write(frame);
  }

  #write(text: string): boolean {
    if (this.#closed || this.#res.writableEnded) return true;
    return this.#res.write(text);
  }
}
