import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { ExitEvent, LogEvent, MAX_EXEC_OUTPUT_BYTES, SseParser } from '../../core/index.ts';

export interface CollectedOutput {
  stdout: string;
  stderr: string;
  /** Either stream was longer than `MAX_EXEC_OUTPUT_BYTES` and is cut there. */
  truncated: boolean;
  /** Bytes each stream really wrote, kept or not. */
  stdoutBytes: number;
  stderrBytes: number;
  /** The run's `exit` event; absent when the stream ended without one. */
  exit?: ExitEvent;
}

/**
 * Reads a run's SSE stream to its end, keeping up to `max` bytes of each output stream
 * (cut on a character boundary) and reading the rest only to let the process run to its end.
 */
export async function collectOutput(
  upstream: Readable,
  max = MAX_EXEC_OUTPUT_BYTES,
): Promise<CollectedOutput> {
  const kept = { stdout: new Kept(max), stderr: new Kept(max) };
  const parser = new SseParser();
  const decoder = new StringDecoder('utf8');
  let exit: ExitEvent | undefined;
  const take = (text: string) => {
    for (const m of parser.push(text)) {
      if (m.event === 'log') {
        const log = LogEvent.safeParse(safeJson(m.data));
        if (log.success) kept[log.data.stream].add(log.data.data);
      } else if (m.event === 'exit') {
        const parsed = ExitEvent.safeParse(safeJson(m.data));
        if (parsed.success) exit = parsed.data;
      }
    }
  };
  try {
    for await (const chunk of upstream as AsyncIterable<Buffer>) take(decoder.write(chunk));
    take(decoder.end());
  } catch {
    // The connection broke (the caller went away, or sandboxd did): what arrived stands.
  }
  return {
    stdout: kept.stdout.text(),
    stderr: kept.stderr.text(),
    truncated: kept.stdout.truncated || kept.stderr.truncated,
    stdoutBytes: kept.stdout.bytes,
    stderrBytes: kept.stderr.bytes,
    ...(exit ? { exit } : {}),
  };
}

/** One stream's text, kept up to a number of UTF-8 bytes. */
class Kept {
  readonly #max: number;
  readonly #parts: string[] = [];
  #kept = 0;
  bytes = 0;
  truncated = false;

  constructor(max: number) {
    this.#max = max;
  }

  add(text: string): void {
    const size = Buffer.byteLength(text);
    this.bytes += size;
    if (this.truncated) return;
    if (this.#kept + size <= this.#max) {
      this.#parts.push(text);
      this.#kept += size;
      return;
    }
    this.truncated = true;
    const room = this.#max - this.#kept;
    const bytes = Buffer.from(text).subarray(0, room + 1);
    // Back off to the start of the character the cut falls in: never half a character.
    let end = room;
    while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
    this.#parts.push(bytes.subarray(0, end).toString('utf8'));
    this.#kept += end;
  }

  text(): string {
    return this.#parts.join('');
  }
}

/** The last `exit` event in a stream's tail, if the tail holds one. */
export function lastExit(tail: string): ExitEvent | undefined {
  const at = tail.lastIndexOf('event: exit\ndata: ');
  if (at < 0) return undefined;
  const line = tail.slice(at + 'event: exit\ndata: '.length).split('\n', 1)[0] ?? '';
  const parsed = ExitEvent.safeParse(safeJson(line));
  return parsed.success ? parsed.data : undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
