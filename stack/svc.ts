import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startManaged, type Managed } from './processes.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface SvcOptions {
  /** Its log (stdout and stderr); unless told, a file in a temporary folder `close` removes. */
  logPath?: string;
  /** Node's own flags, before the script (a bench's heap size). */
  nodeOptions?: readonly string[];
  /** Each line of its stdout, as it comes (a test may keep them). */
  onLine?: (line: string) => void;
  /** How long it may take to say `listening on`; 60 s unless told. */
  startTimeoutMs?: number;
}

/** A started `svc` process: a Managed one (its name, process, log, `stop`), and where it listens. */
export interface RunningSvc extends Managed {
  /** The URL it said it listens on (`http://127.0.0.1:PORT`). */
  url: string;
  port: number;
  /** SIGTERM, SIGKILL after `graceMs` (10 s); resolves once it has exited (`stop` is the same). */
  close(graceMs?: number): Promise<void>;
}

/**
 * Runs `node cmd/svc.ts ...args` (`api` or `egress`) and resolves once it says where it
 * listens. It dies with this process (see startManaged). A start that fails —
 * it exits, or says nothing in time — is stopped and rejects with the end of its log.
 */
export async function startSvc(args: string[], opts: SvcOptions = {}): Promise<RunningSvc> {
  const ownDir = opts.logPath ? undefined : await mkdtemp(join(tmpdir(), 'svc-log-'));
  const logPath = opts.logPath ?? join(ownDir!, `${args[0] ?? 'svc'}.log`);
  const managed = startManaged(
    args[0] ?? 'svc',
    process.execPath,
    [...(opts.nodeOptions ?? []), join(root, 'cmd/svc.ts'), ...args],
    logPath,
  );
  const close = async (graceMs?: number) => {
    await managed.stop(graceMs);
    if (ownDir) await rm(ownDir, { recursive: true, force: true });
  };
  const timeoutMs = opts.startTimeoutMs ?? 60_000;
  const lines = createInterface({ input: managed.child.stdout! });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`did not say "listening on" within ${timeoutMs} ms`)),
        timeoutMs,
      );
      lines.on('line', (line) => {
        opts.onLine?.(line);
        const url = listeningAt(line);
        if (url) {
          clearTimeout(timer);
          resolve(url);
        }
      });
      managed.child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`exited (${signal ?? code}) before it listened`));
      });
    });
    return { ...managed, url, port: Number(new URL(url).port), close, stop: close };
  } catch (err) {
    await managed.stop(2_000);
    const log = await readFile(logPath, 'utf8').catch(() => '');
    const tail = log.trimEnd().split('\n').slice(-20).join('\n');
    if (ownDir) await rm(ownDir, { recursive: true, force: true });
    throw new Error(`svc ${args.join(' ')}: ${(err as Error).message}; the end of its log:\n${tail}`, {
      cause: err,
    });
  }
}

/**
 * Where a line of svc's stdout says it listens: `svc api listening on URL`, or the egress
 * gateway's log entry `svc egress listening` with its port (plain HTTP on 127.0.0.1).
 */
function listeningAt(line: string): string | undefined {
  const m = /listening on (http:\/\/\S+)/.exec(line);
  if (m) return m[1];
  if (!line.startsWith('{')) return undefined;
  try {
    const entry = JSON.parse(line) as { msg?: unknown; port?: unknown };
    if (entry.msg === 'svc egress listening' && typeof entry.port === 'number')
      return `http://127.0.0.1:${entry.port}`;
  } catch {
    // Not a log entry: some other line.
  }
  return undefined;
}
