import type { Duplex } from 'node:stream';

/**
 * sandboxd's terminal frames (sandboxd/internal/terminal/terminal.go): kind (1 byte), length (4 bytes,
 * big-endian), payload. To sandboxd: `i` input, `r` resize (cols, rows: 2 bytes each); from
 * it: `o` output, then one `x` with `{"exitCode":N}`.
 */
export const TerminalFrame = { input: 0x69, resize: 0x72, output: 0x6f, exit: 0x78 } as const;

/** The largest frame accepted from sandboxd. */
const MAX_FRAME_BYTES = 1024 * 1024;

function exitCodeOf(payload: Buffer): number {
  try {
    const code = (JSON.parse(payload.toString('utf8')) as { exitCode?: unknown }).exitCode;
    return typeof code === 'number' && Number.isInteger(code) ? code : -1;
  } catch {
    return -1;
  }
}

export interface TerminalOptions {
  cols: number;
  rows: number;
  /** A program to run (with `sh -c`) instead of the default shell. */
  command?: string;
  /** The id of the ticket this session is opened with: sandboxd lets each be used once. */
  ticket?: { id: string; ttlMs: number };
}

/** An open session's connection, or sandboxd's refusal of it. */
export type TerminalOpening =
  | { ok: true; socket: Duplex; head: Buffer }
  | { ok: false; status: number; headers: Record<string, string | string[] | undefined>; body: unknown };

/** One session with sandboxd: frames in, frames out. */
export class TerminalStream {
  readonly #socket: Duplex;
  #pending: Buffer = Buffer.alloc(0);

  constructor(
    socket: Duplex,
    head: Buffer,
    handlers: { output(bytes: Buffer): void; exit(code: number): void },
  ) {
    this.#socket = socket;
    const take = (chunk: Buffer) => {
      this.#pending = this.#pending.length ? Buffer.concat([this.#pending, chunk]) : chunk;
      while (this.#pending.length >= 5) {
        const size = this.#pending.readUInt32BE(1);
        // sandboxd sends at most 32 KiB at a time; anything far larger is not sandboxd
        // speaking, and is not buffered.
        if (size > MAX_FRAME_BYTES) return void socket.destroy();
        if (this.#pending.length < 5 + size) break;
        const kind = this.#pending[0];
        const payload = this.#pending.subarray(5, 5 + size);
        this.#pending = this.#pending.subarray(5 + size);
        if (kind === TerminalFrame.output) handlers.output(payload);
        else if (kind === TerminalFrame.exit) handlers.exit(exitCodeOf(payload));
      }
    };
    if (head.length > 0) take(head);
    socket.on('data', take);
  }

  input(bytes: Buffer): boolean {
    const head = Buffer.alloc(5);
    head[0] = TerminalFrame.input;
    head.writeUInt32BE(bytes.length, 1);
    return this.#socket.write(Buffer.concat([head, bytes]));
  }

  resize(cols: number, rows: number): void {
    const frame = Buffer.alloc(9);
    frame[0] = TerminalFrame.resize;
    frame.writeUInt32BE(4, 1);
    frame.writeUInt16BE(cols, 5);
    frame.writeUInt16BE(rows, 7);
    this.#socket.write(frame);
  }

  /** Output flow control: stop reading sandboxd while the client is behind. */
  pause(): void {
    this.#socket.pause();
  }

  resume(): void {
    this.#socket.resume();
  }

  /** Ends the session: sandboxd hangs up its processes (SIGHUP, then SIGKILL after its grace). */
  close(): void {
    this.#socket.end();
  }

  onClose(fn: () => void): void {
    this.#socket.once('close', fn);
    this.#socket.on('error', () => this.#socket.destroy());
  }
}

export function terminalPath(o: TerminalOptions): string {
  const q = new URLSearchParams({ cols: String(o.cols), rows: String(o.rows) });
  if (o.command) q.set('command', o.command);
  return `/terminal?${q.toString()}`;
}
