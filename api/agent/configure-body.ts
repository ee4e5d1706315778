import { createHash, type Hash } from 'node:crypto';
import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { CONFIGURE_LIMITS, ConfigureRequest, filesDigestOfHashes } from '../../core/index.ts';
import { HttpError, badRequest, policyViolation } from '../errors/index.ts';
import { parsed } from '../openapi/index.ts';

/** JSON escaping can double a file's size; past this the body cannot be within the limits. */
export const MAX_CONFIGURE_BODY_BYTES = 2 * CONFIGURE_LIMITS.maxRequestBytes + 1024 * 1024;
/** Everything but the files' contents (paths, entrypoint, install command, JSON syntax). */
const MAX_OUTSIDE_CONTENT_CHARS = 1024 * 1024;
/** ConfigureRequest nests three deep; anything much deeper is not one. */
const MAX_DEPTH = 16;

export interface SpooledFile {
  path: string;
  /** Decoded bytes. */
  size: number;
  sha256: string;
}

/** A configure body read to its end, its files' contents on disk, never all in memory. */
export interface SpooledConfigure {
  files: SpooledFile[];
  entrypoint: string[];
  installCommand?: string[];
  /** `filesDigest` of the files, computed as they streamed. */
  digest: string;
  /** The files' bytes back to back, in the order of `files` (sandboxd's framing). */
  contents(): Readable;
  /** Drops the spool; call once done with `contents()`. */
  close(): Promise<void>;
}

/**
 * Reads a configure body as it arrives: the JSON is parsed as a stream, each file's
 * `content` decoded chunk by chunk, counted against the configure limits, hashed, and
 * appended to one temporary file (unlinked at once, so nothing outlives the request even
 * if the process dies). Memory stays at about one chunk per request whatever its size;
 * the limits refuse (403 `policy_violation`) the moment a count or size passes them, and
 * 413 stops a body larger than any valid configure.
 */
export async function readConfigureBody(
  body: ReadableStream<Uint8Array> | null,
  declaredLength: number,
): Promise<SpooledConfigure> {
  if (declaredLength > MAX_CONFIGURE_BODY_BYTES) throw tooLarge();
  const spool = await Spool.create();
  try {
    const parser = new StreamingJson(spool);
    const decoder = new TextDecoder('utf-8');
    let size = 0;
    if (body) {
      const reader = body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          size += value.length;
          if (size > MAX_CONFIGURE_BODY_BYTES) throw tooLarge();
          await parser.push(decoder.decode(value, { stream: true }));
        }
      } catch (err) {
        // Refused part way: read the rest (up to the bound) and drop it, so the answer goes
        // out on a connection with nothing unread in it and reaches the caller.
        while (size <= MAX_CONFIGURE_BODY_BYTES) {
          const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
          if (done || !value) break;
          size += value.length;
        }
        throw err;
      } finally {
        reader.releaseLock();
      }
    }
    await parser.push(decoder.decode());
    const root = parser.end();
    // The one validation hook, as for every other body (this one is read as it streams in).
    const request = parsed(ConfigureRequest, root === undefined ? {} : root);
    const files = request.files.map((f, i) => ({ path: f.path, ...spool.file(i) }));
    return {
      files,
      entrypoint: request.entrypoint,
      ...(request.installCommand ? { installCommand: request.installCommand } : {}),
      digest: filesDigestOfHashes(files),
      contents: () => spool.contents(),
      close: () => spool.close(),
    };
  } catch (err) {
    await spool.close();
    throw err;
  }
}

const tooLarge = () =>
  new HttpError(
    413,
    'payload_too_large',
    `the request body is larger than ${MAX_CONFIGURE_BODY_BYTES} bytes`,
  );

/** Where the files' contents go: counted against the limits, hashed, written to disk. */
class Spool {
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

type Frame =
  | {
      kind: 'object';
      value: Record<string, unknown>;
      key: string | undefined;
      expect: 'keyOrEnd' | 'key' | 'colon' | 'value' | 'commaOrEnd';
    }
  | { kind: 'array'; value: unknown[]; expect: 'valueOrEnd' | 'value' | 'commaOrEnd' };

const WS = new Set([' ', '\t', '\n', '\r']);
const TOKEN = /[-+0-9.eEa-z]/;
// JSON forbids raw control characters in strings; finding them is the point here.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f]/;
const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};
const invalid = (why: string) => badRequest(`request body is not valid JSON: ${why}`);

/**
 * A streaming JSON parser for the configure body: builds every value as `JSON.parse` would,
 * except the strings at `files[i].content` and `files[i].contentBase64`, which go to the
 * spool as they are decoded (and stand as `''` in the built value). Input arrives as text
 * in any pieces.
 */
class StreamingJson {
  readonly #spool: Spool;
  readonly #stack: Frame[] = [];
  #root: unknown = undefined;
  #hasRoot = false;
  /** Input held back: an escape cut by the end of a piece. */
  #carry = '';
  /** Inside a string: its raw text so far (built strings) or `content` (streamed). */
  #string: { raw: string; key: boolean } | 'content' | undefined;
  /** A high surrogate from a `\u` escape, waiting for its low half. */
  #high = '';
  #token = '';
  #outside = 0;

  constructor(spool: Spool) {
    this.#spool = spool;
  }

  async push(piece: string): Promise<void> {
    const text = this.#carry + piece;
    this.#carry = '';
    let i = 0;
    while (i < text.length) {
      if (this.#streaming()) {
        i = this.#content(text, i);
        if (!this.#streaming()) await this.#spool.contentEnded();
        continue;
      }
      const start = i;
      i = this.#structure(text, i);
      this.#outside += i - start;
      if (this.#outside > MAX_OUTSIDE_CONTENT_CHARS)
        throw new HttpError(
          413,
          'payload_too_large',
          `apart from the files' contents, a configure body may hold at most ${MAX_OUTSIDE_CONTENT_CHARS} characters`,
        );
      if (this.#streaming()) this.#contentBegins();
      if (this.#carry) break;
    }
    if (this.#streaming()) await this.#spool.flush();
  }

  end(): unknown {
    if (this.#carry || this.#string !== undefined) throw invalid('the body ends inside a string');
    if (this.#token) this.#finishToken();
    if (this.#stack.length > 0 || !this.#hasRoot) throw invalid('the body ends early');
    return this.#root;
  }

  /** Streams content from `i`; returns where it stopped (the end, or past the closing quote). */
  #content(text: string, i: number): number {
    const quote = text.indexOf('"', i);
    const slash = text.indexOf('\\', i);
    const stop = Math.min(quote < 0 ? text.length : quote, slash < 0 ? text.length : slash);
    if (stop > i) {
      const run = text.slice(i, stop);
      if (CONTROL.test(run)) throw invalid('a control character in a string');
      this.#emit(run);
    }
    if (stop === text.length) return stop;
    if (text[stop] === '"') {
      this.#emit('');
      this.#string = undefined;
      this.#valueDone('');
      return stop + 1;
    }
    const decoded = this.#escape(text, stop);
    if (decoded === undefined) {
      this.#carry = text.slice(stop);
      return text.length;
    }
    return decoded;
  }

  /** Decodes the escape at `i` into the content; its end, or undefined when cut short. */
  #escape(text: string, i: number): number | undefined {
    const kind = text[i + 1];
    if (kind === undefined) return undefined;
    if (kind !== 'u') {
      const ch = ESCAPES[kind];
      if (ch === undefined) throw invalid(`a bad escape \\${kind}`);
      this.#emit(ch);
      return i + 2;
    }
    if (text.length < i + 6) return undefined;
    const hex = text.slice(i + 2, i + 6);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw invalid(`a bad escape \\u${hex}`);
    const unit = String.fromCharCode(parseInt(hex, 16));
    const code = unit.charCodeAt(0);
    if (code >= 0xd800 && code <= 0xdbff) {
      this.#emit('');
      this.#high = unit;
    } else this.#emit(unit);
    return i + 6;
  }

  /** Content text, after any pending high surrogate (a lone one encodes as U+FFFD). */
  #emit(text: string): void {
    if (this.#high) {
      this.#spool.append(this.#high + text);
      this.#high = '';
    } else if (text) this.#spool.append(text);
  }

  #streaming(): boolean {
    return this.#string === 'content';
  }

  #contentBegins(): void {
    const frame = this.#stack[2] as Extract<Frame, { kind: 'object' }>;
    const file = frame.value;
    this.#spool.contentStarted(
      (this.#stack[1]!.value as unknown[]).length,
      typeof file.path === 'string' ? file.path : undefined,
      frame.key === 'contentBase64',
    );
  }

  /** Parses everything but streamed content from `i`; returns where it stopped. */
  #structure(text: string, i: number): number {
    while (i < text.length) {
      if (this.#streaming()) return i;
      if (this.#string) {
        i = this.#builtString(text, i);
        if (this.#carry) return text.length;
        continue;
      }
      const ch = text[i]!;
      if (this.#token) {
        if (TOKEN.test(ch)) {
          this.#token += ch;
          i++;
          continue;
        }
        this.#finishToken();
      }
      if (WS.has(ch)) {
        i++;
        continue;
      }
      this.#char(ch);
      i++;
    }
    return i;
  }

  #builtString(text: string, i: number): number {
    const s = this.#string as { raw: string; key: boolean };
    for (let j = i; j < text.length; j++) {
      const ch = text[j];
      if (ch === '\\') {
        if (j + 1 >= text.length || (text[j + 1] === 'u' && j + 6 > text.length)) {
          s.raw += text.slice(i, j);
          this.#carry = text.slice(j);
          return text.length;
        }
        j += text[j + 1] === 'u' ? 5 : 1;
        continue;
      }
      if (ch === '"') {
        s.raw += text.slice(i, j);
        let value: string;
        try {
          value = JSON.parse(`"${s.raw}"`) as string;
        } catch {
          throw invalid('a bad string');
        }
        this.#string = undefined;
        if (s.key) {
          const frame = this.#stack.at(-1) as Extract<Frame, { kind: 'object' }>;
          frame.key = value;
          frame.expect = 'colon';
        } else this.#valueDone(value);
        return j + 1;
      }
    }
    s.raw += text.slice(i);
    return text.length;
  }

  #char(ch: string): void {
    const frame = this.#stack.at(-1);
    if (frame?.kind === 'object') {
      if (frame.expect === 'keyOrEnd' || frame.expect === 'key') {
        if (ch === '"') return void (this.#string = { raw: '', key: true });
        if (ch === '}' && frame.expect === 'keyOrEnd') return this.#close();
        throw invalid(`unexpected ${JSON.stringify(ch)} where a key belongs`);
      }
      if (frame.expect === 'colon') {
        if (ch !== ':') throw invalid(`unexpected ${JSON.stringify(ch)} where ':' belongs`);
        frame.expect = 'value';
        return;
      }
      if (frame.expect === 'commaOrEnd') {
        if (ch === ',') return void (frame.expect = 'key');
        if (ch === '}') return this.#close();
        throw invalid(`unexpected ${JSON.stringify(ch)} in an object`);
      }
    } else if (frame?.kind === 'array') {
      if (frame.expect === 'commaOrEnd') {
        if (ch === ',') return void (frame.expect = 'value');
        if (ch === ']') return this.#close();
        throw invalid(`unexpected ${JSON.stringify(ch)} in an array`);
      }
      if (ch === ']' && frame.expect === 'valueOrEnd') return this.#close();
    } else if (this.#hasRoot) throw invalid('more after the value');
    this.#valueStarts(ch);
  }

  #valueStarts(ch: string): void {
    if (ch === '{' || ch === '[') {
      if (this.#stack.length >= MAX_DEPTH) throw invalid('nested too deeply');
      if (ch === '{' && this.#inFilesArray()) {
        this.#spool.fileStarted((this.#stack[1]!.value as unknown[]).length);
      }
      this.#stack.push(
        ch === '{'
          ? { kind: 'object', value: {}, key: undefined, expect: 'keyOrEnd' }
          : { kind: 'array', value: [], expect: 'valueOrEnd' },
      );
      return;
    }
    if (ch === '"') {
      this.#string = this.#atContent() ? 'content' : { raw: '', key: false };
      return;
    }
    if (TOKEN.test(ch)) {
      this.#token = ch;
      return;
    }
    throw invalid(`unexpected ${JSON.stringify(ch)}`);
  }

  #finishToken(): void {
    let value: unknown;
    try {
      value = JSON.parse(this.#token);
    } catch {
      throw invalid(`unexpected ${JSON.stringify(this.#token.slice(0, 20))}`);
    }
    this.#token = '';
    this.#valueDone(value);
  }

  #close(): void {
    const frame = this.#stack.pop()!;
    this.#valueDone(frame.value);
  }

  #valueDone(value: unknown): void {
    const frame = this.#stack.at(-1);
    if (!frame) {
      this.#root = value;
      this.#hasRoot = true;
    } else if (frame.kind === 'object') {
      // Like JSON.parse: a repeated key keeps its last value; `__proto__` is a plain key.
      Object.defineProperty(frame.value, frame.key!, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      frame.expect = 'commaOrEnd';
    } else {
      frame.value.push(value);
      frame.expect = 'commaOrEnd';
    }
  }

  /** The stack is [root object at `files`, its array]: an object here is a file. */
  #inFilesArray(): boolean {
    const [root, files] = this.#stack;
    return (
      this.#stack.length === 2 && root?.kind === 'object' && root.key === 'files' && files?.kind === 'array'
    );
  }

  /** A string here is `files[i].content` or `files[i].contentBase64`. */
  #atContent(): boolean {
    const [root, files, file] = this.#stack;
    return (
      this.#stack.length === 3 &&
      root?.kind === 'object' &&
      root.key === 'files' &&
      files?.kind === 'array' &&
      file?.kind === 'object' &&
      (file.key === 'content' || file.key === 'contentBase64')
    );
  }
}

/**
 * Base64 (RFC 4648, with or without padding) decoded as it streams: whole 4-character
 * groups are decoded at once, the rest waits for the next piece. Anything outside the
 * alphabet is a 400 naming the file.
 */
class Base64Decoder {
  readonly #index: number;
  #rest = '';

  constructor(index: number) {
    this.#index = index;
  }

  push(text: string, final: boolean): Buffer {
    const all = this.#rest + text;
    // Padding may only end the text: anything after it fails here, whatever the pieces.
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(all)) throw this.#bad('a character outside the base64 alphabet');
    if (!final) {
      // Whole groups before any padding now; the rest (at most a group and its padding) waits.
      const body = all.replace(/=+$/, '');
      const whole = body.length - (body.length % 4);
      this.#rest = all.slice(whole);
      return Buffer.from(all.slice(0, whole), 'base64');
    }
    this.#rest = '';
    const unpadded = all.replace(/=+$/, '');
    if (unpadded.length % 4 === 1 || (unpadded.length !== all.length && all.length % 4 !== 0))
      throw this.#bad('a length no base64 text has');
    return Buffer.from(unpadded, 'base64');
  }

  #bad(why: string) {
    return badRequest(`files[${this.#index}].contentBase64 is not base64: ${why}`, {
      fields: [{ path: `files[${this.#index}].contentBase64`, message: `is not base64: ${why}` }],
    });
  }
}
