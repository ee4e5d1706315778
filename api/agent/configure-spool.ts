import { createHash, type Hash } from 'node:crypto';
import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { CONFIGURE_LIMITS } from '../../core/index.ts';
import { badRequest, policyViolation } from '../errors/index.ts';
import { Base64Decoder } from './configure-base64.ts';

/**
 * Where the files' contents go: counted against the limits, hashed, and appended to one
 * temporary file (unlinked at once, so nothing outlives the request even if the process
 * dies). Holds one piece of text at a time, never a whole file.
 */
export class Spool {
  readonly #dir: string;
  readonly #handle: FileHandle;
  readonly #files: { size: number; hash: Hash; done: boolean; base64?: Base64Decoder }[] = [];
  readonly #paths: (string | undefined)[] = [];
  #pending: string[] = [];
  #current = -1;
  #total = 0;

  private constructor(dir: string, handle: FileHandle) {
    this.#dir = dir;
    this.#handle = handle;
  }

  static async create(): Promise<Spool> {
    const dir = await mkdtemp(join(tmpdir(), 'svc-configure-'));
    const handle = await open(join(dir, 'files'), 'w+', 0o600);
    // Unlinked now: the open handle keeps the data; a crash leaves nothing behind.
    await rm(dir, { recursive: true, force: true });
    return new Spool(dir, handle);
  }

  /** A new file object began in `files`: refuse the one past the count limit. */
  fileStarted(index: number): void {
    if (index >= CONFIGURE_LIMITS.maxFiles)
      throw policyViolation([
        {
          code: 'configure_too_many_files',
          message: `more than ${CONFIGURE_LIMITS.maxFiles} files; at most ${CONFIGURE_LIMITS.maxFiles} per request`,
        },
      ]);
  }

  /**
   * `files[index].content` (or `.contentBase64`, when `base64`) begins; `path` when it came
   * first (for messages).
   */
  contentStarted(index: number, path: string | undefined, base64: boolean): void {
    if (this.#files[index])
      throw badRequest(`files[${index}]: give one content: content or contentBase64, once`);
    this.#files[index] = {
      size: 0,
      hash: createHash('sha256'),
      done: false,
      ...(base64 ? { base64: new Base64Decoder(index) } : {}),
    };
    this.#paths[index] = path;
    this.#current = index;
  }

  append(text: string): void {
    this.#pending.push(text);
  }

  /** Counts, hashes and writes what was appended since the last flush. */
  async flush(final = false): Promise<void> {
    const file = this.#files[this.#current];
    if (!file || (this.#pending.length === 0 && !(final && file.base64))) return;
    const text = this.#pending.join('');
    this.#pending = [];
    const bytes = file.base64 ? file.base64.push(text, final) : Buffer.from(text, 'utf8');
    file.size += bytes.length;
    this.#total += bytes.length;
    const name = this.#paths[this.#current] ?? `files[${this.#current}]`;
    if (file.size > CONFIGURE_LIMITS.maxFileBytes)
      throw policyViolation([
        {
          code: 'configure_file_too_large',
          message: `${name} is more than ${CONFIGURE_LIMITS.maxFileBytes} bytes; at most ${CONFIGURE_LIMITS.maxFileBytes} (32 MiB) per file`,
        },
      ]);
    if (this.#total > CONFIGURE_LIMITS.maxRequestBytes)
      throw policyViolation([
        {
          code: 'configure_request_too_large',
          message: `more than ${CONFIGURE_LIMITS.maxRequestBytes} bytes in all; at most ${CONFIGURE_LIMITS.maxRequestBytes} (128 MiB) per request`,
        },
      ]);
    file.hash.update(bytes);
    await this.#handle.write(bytes);
  }

  async contentEnded(): Promise<void> {
    await this.flush(true);
    this.#files[this.#current]!.done = true;
  }

  file(index: number): { size: number; sha256: string } {
    const f = this.#files[index];
    if (!f?.done) throw badRequest(`files[${index}]: content or contentBase64 must be a string`);
    return { size: f.size, sha256: f.hash.copy().digest('hex') };
  }

  contents(): Readable {
    return this.#handle.createReadStream({ start: 0, autoClose: false });
  }

  async close(): Promise<void> {
    await this.#handle.close().catch(() => undefined);
    await rm(this.#dir, { recursive: true, force: true });
  }
}
