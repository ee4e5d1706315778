// What sbx prints when something fails, and the exit codes it documents (docs/cli.md):
// one readable line on stderr, the policy violations listed on it, never a stack trace.

/** sbx's own exit codes; exec, shell and invoke exit with the remote program's code instead. */
export const ExitCode = {
  ok: 0,
  /** The API refused, the network failed, or the remote side reported an error. */
  error: 1,
  /** Bad flags or arguments (the usage is printed). */
  usage: 2,
  /** Not signed in, or the credential was refused (401). */
  auth: 4,
  /** Interrupted (Ctrl-C): 128 + SIGINT, as shells report it. */
  interrupted: 130,
} as const;

/** A failure sbx explains itself, with the exit code it ends with. */
export class CliError extends Error {
  override name = 'CliError';
  readonly exitCode: number;
  constructor(message: string, exitCode: number = ExitCode.error) {
    super(message);
    this.exitCode = exitCode;
  }
}

interface ApiErrorLike {
  status: number;
  code: string;
  message: string;
  violations?: { code: string; message: string; field?: string }[];
  body?: unknown;
}

function isApiError(err: unknown): err is ApiErrorLike {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as ApiErrorLike).status === 'number' &&
    typeof (err as ApiErrorLike).code === 'string'
  );
}

/** The one line for `err`, and the exit code it maps to. */
export function describeError(err: unknown): { line: string; exitCode: number } {
  if (err instanceof CliError) return { line: err.message, exitCode: err.exitCode };
  if (isApiError(err)) {
    let line = `${err.message} (${err.code}, HTTP ${err.status})`;
    const violations = err.violations ?? [];
    if (violations.length > 0) {
      line += `: ${violations.map((v) => `${v.code}: ${v.message}`).join('; ')}`;
    }
    const fields = fieldsOf(err.body);
    if (fields) line += `: ${fields}`;
    return { line, exitCode: err.status === 401 ? ExitCode.auth : ExitCode.error };
  }
  if (err instanceof Error) {
    // fetch's "fetch failed" hides the reason (connection refused, DNS) in its cause.
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    if (err.message === 'fetch failed' && cause) {
      return { line: `cannot reach the API: ${cause.code ?? cause.message ?? 'unknown'}`, exitCode: 1 };
    }
    if (err.name === 'AbortError') return { line: 'interrupted', exitCode: ExitCode.interrupted };
    return { line: err.message, exitCode: ExitCode.error };
  }
  return { line: String(err), exitCode: ExitCode.error };
}

/** A 400's other bad fields (`{"fields":[{"path","message"}]}`): its message names the first only. */
function fieldsOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const list =
    (body as { fields?: unknown; issues?: unknown }).fields ?? (body as { issues?: unknown }).issues;
  if (!Array.isArray(list) || list.length < 2) return undefined;
  const parts = list.flatMap((f: unknown) => {
    if (typeof f !== 'object' || f === null) return [];
    const { path, field, message } = f as { path?: unknown; field?: unknown; message?: unknown };
    const where = Array.isArray(path) ? path.join('.') : (field ?? path);
    return [
      `${typeof where === 'string' && where !== '' ? `${where}: ` : ''}${typeof message === 'string' ? message : ''}`,
    ];
  });
  return parts.length > 0 ? parts.join('; ') : undefined;
}
