// Output as kubectl prints it: a table by default (`-o wide` adds columns), or the API's
// own JSON or YAML with `-o json|yaml`. Colour only on a terminal, and never with NO_COLOR.
import { CliError, ExitCode } from './errors.ts';

export type Format = 'table' | 'wide' | 'json' | 'yaml' | 'name';

export function parseFormat(value: string | undefined): Format {
  if (value === undefined || value === '') return 'table';
  if (value === 'json' || value === 'yaml' || value === 'wide' || value === 'name') return value;
  throw new CliError(`-o must be json, yaml, wide or name, not "${value}"`, ExitCode.usage);
}

/** Whether `stream` gets colour: a terminal, NO_COLOR unset (https://no-color.org), TERM not dumb. */
export function useColour(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

export interface Paint {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
}

export function paint(on: boolean): Paint {
  const wrap = (open: number, close: number) => (s: string) => (on ? `\x1b[${open}m${s}\x1b[${close}m` : s);
  return {
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
  };
}

/** Columns padded to their widest cell, three spaces apart, headers in capitals (kubectl's look). */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('   ')
      .trimEnd();
  return [line(headers.map((h) => h.toUpperCase())), ...rows.map(line)].join('\n') + '\n';
}

export async function serialize(value: unknown, format: 'json' | 'yaml'): Promise<string> {
  if (format === 'json') return JSON.stringify(value, null, 2) + '\n';
  const { stringify } = await import('yaml');
  return stringify(value);
}

/** Prints `value` as JSON or YAML, or the table `rows` makes of it. */
export async function printAs(
  format: Format,
  value: unknown,
  render: (wide: boolean) => { headers: string[]; rows: string[][] },
  out: NodeJS.WritableStream = process.stdout,
): Promise<void> {
  if (format === 'json' || format === 'yaml') {
    out.write(await serialize(value, format));
    return;
  }
  const { headers, rows } = render(format === 'wide');
  if (format === 'name') {
    // The first column, one per line, for scripts (and shell completion).
    out.write(rows.map((r) => `${r[0]}\n`).join(''));
    return;
  }
  out.write(rows.length === 0 && format === 'table' ? 'No resources found.\n' : table(headers, rows));
}

/** kubectl's AGE: 45s, 12m, 3h, 2d. */
export function age(since: string | undefined, now: number = Date.now()): string {
  if (!since) return '<unknown>';
  const s = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  if (Number.isNaN(s)) return '<unknown>';
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}
