// The terminal: xterm.js on the client's terminal session (a one-use ticket, then the API's
// WebSocket with `?ticket=`, since a browser cannot put a header on a WebSocket). This file
// and xterm.js are their own chunk, fetched the first time a terminal opens.
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { TerminalSession } from '../../../clients/typescript/index.ts';
import { ErrorBox } from '../errors.tsx';
import type { Session } from '../main.tsx';

export function TerminalTab({ session, name }: { session: Session; name: string }) {
  const box = useRef<HTMLDivElement>(null);
  const [status, setStatus] = useState('Connecting…');
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    const term = new Terminal({ cursorBlink: true, fontSize: 14, scrollback: 5000 });
    const sizer = new FitAddon();
    term.loadAddon(sizer);
    term.open(box.current!);
    // The rows and columns that fill the box; a resize reaches the shell through onResize.
    const fill = () => {
      const size = sizer.proposeDimensions();
      if (!size || Number.isNaN(size.cols) || Number.isNaN(size.rows)) return; // not laid out yet
      if (size.cols !== term.cols || size.rows !== term.rows) term.resize(size.cols, size.rows);
    };
    fill();
    let shell: TerminalSession | undefined;
    let left = false;
    session.client
      .openTerminal(name, { cols: term.cols, rows: term.rows })
      .then((s) => {
        if (left) return s.close();
        shell = s;
        setStatus('Connected');
        s.onData((bytes) => term.write(bytes));
        term.onData((d) => s.send(d));
        term.onResize(({ cols, rows }) => s.resize(cols, rows));
        term.focus();
        void s.exit.then((code) =>
          setStatus(code === null ? 'Disconnected' : `The shell exited with code ${code}`),
        );
      })
      .catch((err: unknown) => {
        setStatus('Not connected');
        setError(err);
      });
    addEventListener('resize', fill);
    return () => {
      left = true;
      removeEventListener('resize', fill);
      shell?.close();
      term.dispose();
    };
  }, [session, name]);
  return (
    <>
      <p role="status" class="hint">
        {status}
      </p>
      <ErrorBox error={error} />
      <div class="term-box" ref={box} role="region" aria-label="Terminal" />
    </>
  );
}
