// A terminal session over the API's WebSocket (docs/terminal.md): the global WebSocket of
// browsers and Node 22+, nothing else.

/** Exit frame: the last text frame before the server closes with 1000. */
interface ExitFrame {
  type: 'exit';
  exitCode: number;
}

/**
 * One shell in a sandbox. Output reaches the `onData` listeners as bytes (kept until the
 * first listener is added, so nothing is lost between open and subscribe); `exit` settles
 * once the socket is closed: with the shell's exit code, or `null` when the session ended
 * without one (closed by `close()`, the server or the network).
 */
export class TerminalSession {
  readonly #ws: WebSocket;
  readonly #listeners = new Set<(bytes: Uint8Array) => void>();
  readonly #early: Uint8Array[] = [];
  readonly #encoder = new TextEncoder();
  /** Resolves with the exit code, or null without an exit frame. */
  readonly exit: Promise<number | null>;

  /** Use `SvcClient.openTerminal`, which also gets the ticket. */
  constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.binaryType = 'arraybuffer';
    let code: number | null = null;
    this.exit = new Promise((resolve) => ws.addEventListener('close', () => resolve(code)));
    ws.addEventListener('message', (e: MessageEvent) => {
      if (typeof e.data === 'string') {
        const frame = parse(e.data);
        if (frame) code = frame.exitCode;
        return;
      }
      const bytes = new Uint8Array(e.data as ArrayBuffer);
      if (this.#listeners.size === 0) this.#early.push(bytes);
      for (const fn of this.#listeners) fn(bytes);
    });
  }

  /** Input: keystrokes, pastes (a string is sent as UTF-8). */
  send(data: string | Uint8Array): void {
    this.#ws.send(typeof data === 'string' ? this.#encoder.encode(data) : new Uint8Array(data));
  }

  resize(cols: number, rows: number): void {
    this.#ws.send(JSON.stringify({ type: 'resize', cols, rows }));
  }

  /** Adds an output listener; returns its removal. */
  onData(fn: (bytes: Uint8Array) => void): () => void {
    this.#listeners.add(fn);
    for (const bytes of this.#early.splice(0)) fn(bytes);
    return () => this.#listeners.delete(fn);
  }

  /** Ends the session: the server hangs up the shell and everything it started. */
  close(): void {
    this.#ws.close(1000);
  }
}

function parse(text: string): ExitFrame | undefined {
  try {
    const m = JSON.parse(text) as Partial<ExitFrame>;
    return m.type === 'exit' && typeof m.exitCode === 'number' ? (m as ExitFrame) : undefined;
  } catch {
    return undefined;
  }
}

/** Opens `url` and resolves once the WebSocket is open; rejects when it cannot be. */
export function connectTerminal(url: string): Promise<TerminalSession> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const session = new TerminalSession(ws);
    const failed = () =>
      reject(new Error('the terminal WebSocket could not be opened (refused or unreachable)'));
    ws.addEventListener('error', failed, { once: true });
    ws.addEventListener(
      'open',
      () => {
        ws.removeEventListener('error', failed);
        resolve(session);
      },
      { once: true },
    );
  });
}
