import type { Context } from 'hono';
import { badRequest } from '../errors/index.ts';

/** The query parameters the terminal's upgrade takes; any other is a 400. */
const KNOWN = new Set(['cols', 'rows', 'command', 'ticket', 'namespace']);
const MAX_SIZE = 1000;

export interface TerminalQuery {
  cols: number;
  rows: number;
  command?: string;
}

/** `?cols=&rows=[&command=]`, checked: a 400 naming the field. */
export function terminalQuery(c: Context): TerminalQuery {
  const url = new URL(c.req.url);
  for (const name of url.searchParams.keys())
    if (!KNOWN.has(name)) throw badRequest(`unknown query parameter ${name}`, { field: name });
  const size = (name: 'cols' | 'rows', def: number) => {
    const v = url.searchParams.get(name);
    if (v === null) return def;
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < 1 || n > MAX_SIZE)
      throw badRequest(`${name} must be an integer from 1 to ${MAX_SIZE}`, { field: name });
    return n;
  };
  const command = url.searchParams.get('command') ?? undefined;
  if (command !== undefined && (command.length === 0 || command.length > 8192 || command.includes('\0')))
    throw badRequest('command must be 1 to 8192 characters without NUL', { field: 'command' });
  return { cols: size('cols', 80), rows: size('rows', 24), ...(command ? { command } : {}) };
}

/** A `{"type":"resize","cols":N,"rows":M}` control message, or why it is not one. */
export function parseControl(text: string): { cols: number; rows: number } | { error: string } {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return { error: 'a text frame must be JSON' };
  }
  const m = msg as { type?: unknown; cols?: unknown; rows?: unknown };
  if (m?.type !== 'resize')
    return { error: 'the only control message is {"type":"resize","cols":N,"rows":M}' };
  const ok = (n: unknown): n is number =>
    Number.isInteger(n) && (n as number) >= 1 && (n as number) <= MAX_SIZE;
  if (!ok(m.cols) || !ok(m.rows)) return { error: `cols and rows must be integers from 1 to ${MAX_SIZE}` };
  return { cols: m.cols, rows: m.rows };
}
