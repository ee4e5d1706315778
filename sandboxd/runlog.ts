import { sseFrame } from './sse.ts';

/** Where a reader of a run log gets its frames: the replay first, then live ones. */
export interface RunLogReader {
  frame(text: string): void;
  /** The run's `exit` frame has been sent. */
  end(): void;
}

/**
 * The SSE frames of one install run, as its POST stream sent them, so a second reader (the
 * API, while the operator holds the POST) can replay the run from its `start` and follow it
 * to its `exit`. Bounded: past `maxBytes` the oldest `log` frames go, and a replay says how
 * much output it lacks; `start` and `exit` always stay.
 */
export class RunLog {
  readonly #maxBytes: number;
  /** `start`, and `exit` once the run has ended: the frames that are never dropped. */
  readonly #kept: string[] = [];
  /** `log` frames from index `#head` on; dropping advances `#head` instead of shifting. */
  #logs: ({ frame: string; bytes: number; outputBytes: number } | undefined)[] = [];
  #head = 0;
  #bytes = 0;
  #droppedOutputBytes = 0;
  #finished = false;
  readonly #readers = new Set<RunLogReader>();

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get finished(): boolean {
    return this.#finished;
  }

  /** Readers following the run live. */
  get readers(): number {
    return this.#readers.size;
  }

  /** An `SseTap`: records a frame and passes it to the readers following live. */
  readonly record = (frame: string, outputBytes?: number): void => {
    const bytes = Buffer.byteLength(frame);
    if (outputBytes === undefined) this.#kept.push(frame);
    else this.#logs.push({ frame, bytes, outputBytes });
    this.#bytes += bytes;
    this.#trim();
    for (const reader of this.#readers) reader.frame(frame);
  };

  /** Marks the run ended (after its `exit` frame) and ends every reader. */
  finish(): void {
    this.#finished = true;
    for (const reader of this.#readers) reader.end();
    this.#readers.clear();
  }

  /** Replays the run to `reader`, then follows it; returns how to stop following. */
  attach(reader: RunLogReader): () => void {
    const [start, exit] = this.#kept;
    if (start !== undefined) reader.frame(start);
    if (this.#droppedOutputBytes > 0) {
      const notice = `[sandboxd: ${this.#droppedOutputBytes} bytes of earlier output dropped]\n`;
      reader.frame(sseFrame('log', { stream: 'stderr', data: notice }));
    }
    for (let i = this.#head; i < this.#logs.length; i++) reader.frame(this.#logs[i]!.frame);
    if (exit !== undefined) reader.frame(exit);
    if (this.#finished) {
      reader.end();
      return () => undefined;
    }
    this.#readers.add(reader);
    return () => this.#readers.delete(reader);
  }

  #trim(): void {
    while (this.#bytes > this.#maxBytes && this.#head < this.#logs.length) {
      const dropped = this.#logs[this.#head]!;
      this.#logs[this.#head++] = undefined; // let the text go now, not at the next compaction
      this.#bytes -= dropped.bytes;
      this.#droppedOutputBytes += dropped.outputBytes;
    }
    // Compact once the dropped prefix is most of the array: amortized O(1) per frame.
    if (this.#head > 1024 && this.#head * 2 > this.#logs.length) {
      this.#logs = this.#logs.slice(this.#head);
      this.#head = 0;
    }
  }
}
