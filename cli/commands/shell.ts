// shell: the sandbox's terminal (GET /sandboxes/{id}/terminal, a WebSocket; docs/terminal.md)
// on this one, through the client's terminal session (a one-use ticket, then the socket). The local terminal goes raw, so every key (Ctrl-C too) reaches the remote
// shell; its size is sent at the start and after each SIGWINCH; the remote exit code is sbx's.
import { CliError, ExitCode } from '../errors.ts';
import type { Invocation } from '../main.ts';
import { openSession } from '../session.ts';

function size(): { cols: number; rows: number } {
  // A pseudo-terminal nobody sized yet says 0x0: a classic terminal's size instead.
  const cols = process.stdout.columns || 80;
  const rows = process.stdout.rows || 24;
  return { cols, rows };
}

export async function shell(inv: Invocation<{ command?: string }>): Promise<number> {
  const name = inv.args[0]!;
  const { client } = await openSession(inv.globals);
  // Asked first: a refused upgrade says nothing a person could read (404, 403, 409 do).
  const s = await client.getSandbox(name);
  if (s.status?.phase !== 'Running') {
    throw new CliError(
      `${name} is ${s.status?.phase ?? 'Pending'}, not Running${s.status?.message ? `: ${s.status.message}` : ''}`,
    );
  }
  const term = await client.openTerminal(name, {
    ...size(),
    ...(inv.opts.command ? { command: inv.opts.command } : {}),
  });
  const stdin = process.stdin;
  const raw = stdin.isTTY === true;
  if (raw) stdin.setRawMode(true);
  const onInput = (chunk: Buffer) => term.send(chunk);
  const onResize = () => term.resize(size().cols, size().rows);
  stdin.on('data', onInput);
  // Piped input (not a terminal): its end is the shell's end of input, as Ctrl-D would be.
  const onEnd = () => term.send(new Uint8Array([4]));
  if (!raw) stdin.once('end', onEnd);
  stdin.resume();
  process.stdout.on('resize', onResize);
  process.on('SIGWINCH', onResize);
  try {
    term.onData((bytes) => process.stdout.write(bytes));
    return (await term.exit) ?? ExitCode.error;
  } finally {
    stdin.off('data', onInput);
    stdin.off('end', onEnd);
    process.stdout.off('resize', onResize);
    process.off('SIGWINCH', onResize);
    if (raw) stdin.setRawMode(false);
    stdin.pause();
  }
}
