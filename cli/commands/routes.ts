// Calls on routes the CLI uses whose typed methods live in other parts of the client (or
// are newer than its types): each one place, so swapping in a typed method is one edit.
import type { SvcClient } from '../../clients/typescript/index.ts';

export interface Me {
  sub: string;
  name?: string;
  email?: string;
  groups?: string[];
  isAdmin: boolean;
}

export interface Template {
  name: string;
  kind: string;
  description?: string;
  image?: string;
  resourceVersion?: string;
  spec?: unknown;
}

export const getMe = async (client: SvcClient): Promise<Me> =>
  (await (await client.request('GET', '/user/me')).json()) as Me;

export const listTemplates = async (client: SvcClient): Promise<{ templates: Template[] }> =>
  (await (await client.request('GET', '/templates')).json()) as { templates: Template[] };

/** GET /sandboxes/{id}/ports; on an API without it, the same list from the sandbox's status. */
export async function listPorts(client: SvcClient, id: string): Promise<{ ports: unknown[] }> {
  try {
    return (await (await client.request('GET', `/sandboxes/${encodeURIComponent(id)}/ports`)).json()) as {
      ports: unknown[];
    };
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (status !== 404 && status !== 405) throw err;
    return { ports: (await client.getSandbox(id)).status?.forwardedPorts ?? [] };
  }
}

/** An open terminal session: keystrokes in, output out, until the exit frame. */
export interface TerminalSession {
  send(bytes: Uint8Array): void;
  resize(cols: number, rows: number): void;
  /** Feeds output to `write` until the session ends; resolves with the exit code (undefined if none came). */
  run(write: (bytes: Uint8Array) => void): Promise<number | undefined>;
}

/**
 * The terminal WebSocket (`?cols&rows`, binary frames both ways, text `resize` from us and
 * `exit` from the server), signed in with the client's headers, as programs do (a browser
 * would use a ticket instead). Node's global WebSocket takes headers.
 */
export async function openTerminal(
  client: SvcClient,
  id: string,
  opts: { cols: number; rows: number; command?: string },
): Promise<TerminalSession> {
  const { baseUrl, headers, namespace } = client.connection;
  const url = new URL(`${baseUrl}/sandboxes/${encodeURIComponent(id)}/terminal`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('cols', String(opts.cols));
  url.searchParams.set('rows', String(opts.rows));
  if (opts.command) url.searchParams.set('command', opts.command);
  if (namespace) url.searchParams.set('namespace', namespace);
  const ws = new WebSocket(url, { headers });
  ws.binaryType = 'arraybuffer';
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve(), { once: true });
    ws.addEventListener('error', () => reject(new Error(`the terminal of ${id} could not be opened`)), {
      once: true,
    });
  });
  let pending: Uint8Array[] = [];
  return {
    send(bytes) {
      if (ws.readyState === WebSocket.OPEN) ws.send(bytes);
      else pending.push(bytes);
    },
    resize(cols, rows) {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'resize', cols, rows }));
    },
    run(write) {
      for (const p of pending) ws.send(p);
      pending = [];
      return new Promise((resolve) => {
        let exitCode: number | undefined;
        ws.addEventListener('message', (e: MessageEvent) => {
          if (typeof e.data === 'string') {
            const msg = JSON.parse(e.data) as { type?: string; exitCode?: number };
            if (msg.type === 'exit') exitCode = msg.exitCode;
          } else write(new Uint8Array(e.data as ArrayBuffer));
        });
        ws.addEventListener('close', () => resolve(exitCode));
      });
    },
  };
}
