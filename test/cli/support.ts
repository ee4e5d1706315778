// Running the built sbx (dist/sbx, `make cli-binary`) as a user would: its own config folder
// (XDG_CONFIG_HOME), none of the SVC_* variables of the shell running the tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export const SBX = resolve(import.meta.dirname, '../../dist/sbx');

export function assertBuilt(): void {
  if (!existsSync(SBX))
    throw new Error(`${SBX} is missing: run make cli-binary (make test-integration does)`);
}

export interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function sbxEnv(configHome: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('SVC_')) env[k] = v;
  return { ...env, XDG_CONFIG_HOME: configHome, HOME: configHome, NO_COLOR: '1', ...extra };
}

/** A running sbx: its output so far, and a wait for a pattern in it. */
export class Running {
  readonly child: ChildProcess;
  stdout = '';
  /** Its output has all been read (the 'close' event came). */
  #closed = false;
  stderr = '';
  readonly done: Promise<Result>;

  constructor(child: ChildProcess) {
    this.child = child;
    child.stdout?.on('data', (c: Buffer) => (this.stdout += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (this.stderr += c.toString()));
    child.once('close', () => (this.#closed = true));
    this.done = new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) =>
        resolve({ code, signal, stdout: this.stdout, stderr: this.stderr }),
      );
    });
  }

  /** Stdout without terminal escape sequences (colours, bracketed-paste switches) nor carriage returns. */
  get plain(): string {
    // eslint-disable-next-line no-control-regex
    return this.stdout.replace(/\x1b\[[0-9;?]*[a-zA-Z]/g, '').replaceAll('\r', '');
  }

  /**
   * Resolves once stdout (or stderr) matches, checked as each chunk arrives; rejects at the
   * timeout or as soon as sbx ends without it.
   */
  until(
    pattern: RegExp,
    stream: 'stdout' | 'stderr' | 'plain' = 'stdout',
    timeoutMs = 60_000,
  ): Promise<RegExpMatchArray> {
    const { child } = this;
    return new Promise((resolve, reject) => {
      const settle = (err?: Error) => {
        clearTimeout(timer);
        child.stdout?.off('data', check);
        child.stderr?.off('data', check);
        child.off('close', ended);
        if (err) reject(err);
      };
      // Listeners added after the constructor's: the chunk is already in this.stdout/stderr.
      const check = () => {
        const m = this[stream].match(pattern);
        if (m) {
          settle();
          resolve(m);
        }
        return m;
      };
      const ended = () => {
        if (!check())
          settle(new Error(`sbx ended before ${pattern} (stdout ${this.stdout}, stderr ${this.stderr})`));
      };
      const timer = setTimeout(
        () =>
          settle(
            new Error(`no ${pattern} within ${timeoutMs} ms (stdout ${this.stdout}, stderr ${this.stderr})`),
          ),
        timeoutMs,
      );
      child.stdout?.on('data', check);
      child.stderr?.on('data', check);
      child.once('close', ended);
      if (!check() && this.#closed) ended();
    });
  }
}

export function startSbx(args: string[], env: NodeJS.ProcessEnv, input?: string | Buffer): Running {
  const child = spawn(SBX, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  if (input !== undefined) child.stdin.end(input);
  return new Running(child);
}

export async function sbx(
  args: string[],
  env: NodeJS.ProcessEnv,
  input: string | Buffer = '',
): Promise<Result> {
  const r = startSbx(args, env, input);
  return r.done;
}
