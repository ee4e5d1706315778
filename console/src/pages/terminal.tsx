// The terminal: xterm.js over the API's WebSocket. Loaded on demand (its own chunk), and
// signed in with a one-use ticket, since a browser cannot put a header on a WebSocket.
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorBox } from '../errors.tsx';
import { terminalTicket } from '../extra.ts';
import type { Session } from '../main.tsx';

export function TerminalTab({ session, name }: { session: Session; name: string }) {
  const box = useRef<HTMLDivElement>(null);
  const [status, setStatus] = useState('Connecting…');
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    const term = new Terminal({ cursorBlink: true, fontSize: 14, scrollback: 5000 });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(box.current!);
    fit.fit();
    let socket: WebSocket | undefined;
    let closed = false;
    const encoder = new TextEncoder();
    (async () => {
      const ticket = await terminalTicket(session, name);
      const url = new URL(`/api/v1/sandboxes/${encodeURIComponent(name)}/terminal`, location.href);
      url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
      url.search = new URLSearchParams({
        cols: String(term.cols),
        rows: String(term.rows),
        ticket,
      }).toString();
      if (closed) return;
      const ws = new WebSocket(url);
      socket = ws;
      ws.binaryType = 'arraybuffer';
      ws.onopen = () => {
        setStatus('Connected');
        term.focus();
      };
      ws.onmessage = (e: MessageEvent<ArrayBuffer | string>) => {
        if (typeof e.data === 'string') {
          const msg = JSON.parse(e.data) as { type?: string; exitCode?: number };
          if (msg.type === 'exit') setStatus(`The shell exited with code ${msg.exitCode ?? '?'}`);
          return;
        }
        term.write(new Uint8Array(e.data));
      };
      ws.onclose = (e) => setStatus((s) => (s.startsWith('The shell') ? s : `Disconnected (${e.code})`));
      term.onData((d) => {
        if (ws.readyState === WebSocket.OPEN) ws.send(encoder.encode(d));
      });
      term.onResize(({ cols, rows }) => {
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'resize', cols, rows }));
      });
    })().catch(setError);
    const onResize = () => fit.fit();
    addEventListener('resize', onResize);
    return () => {
      closed = true;
      removeEventListener('resize', onResize);
      socket?.close();
      term.dispose();
    };
  }, [session, name]);
  return (
    <>
      <p role="status" class="hint">
        {status}
      </p>
      <ErrorBox error={error} />
      <div class="terminal" ref={box} aria-label="Terminal" />
    </>
  );
}
