import { HttpError, badRequest } from '../errors/index.ts';

/** Everything but the streamed strings (paths, entrypoint, install command, JSON syntax). */
const MAX_OUTSIDE_CONTENT_CHARS = 1024 * 1024;
/** ConfigureRequest nests three deep; anything much deeper is not one. */
const MAX_DEPTH = 16;

/** Where a value sits: object keys and array indexes from the root. */
export type JsonPath = (string | number)[];

/** What the parser streams, and where it streams it: the body's shape decides. */
export interface StreamTarget {
  /** Whether the string at `path` streams (`begin`, `append`, `flush`, `end`) instead of being built. */
  streamed(path: JsonPath): boolean;
  /** An object begins at `path`. */
  objectStarts(path: JsonPath): void;
  /** A streamed string begins at `path`, in `parent` (the object as built so far). */
  begin(path: JsonPath, parent: Record<string, unknown>): void;
  /** Decoded text of the streamed string, in order. */
  append(text: string): void;
  /** The end of an input piece: what was appended may be written out. */
  flush(): Promise<void>;
  /** The streamed string ended. */
  end(): Promise<void>;
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
 * except the strings its target streams (`files[i].content` and `files[i].contentBase64`),
 * which go to the target as they are decoded (and stand as `''` in the built value). Input
 * arrives as text in any pieces.
 */
export class StreamingJson {
  readonly #target: StreamTarget;
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

  constructor(target: StreamTarget) {
    this.#target = target;
  }

  async push(piece: string): Promise<void> {
    const text = this.#carry + piece;
    this.#carry = '';
    let i = 0;
    while (i < text.length) {
      if (this.#streaming()) {
        i = this.#content(text, i);
        if (!this.#streaming()) await this.#target.end();
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
    if (this.#streaming()) await this.#target.flush();
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
      this.#target.append(this.#high + text);
      this.#high = '';
    } else if (text) this.#target.append(text);
  }

  #streaming(): boolean {
    return this.#string === 'content';
  }

  #contentBegins(): void {
    const parent = this.#stack.at(-1) as Extract<Frame, { kind: 'object' }>;
    this.#target.begin(this.#path(), parent.value);
  }

  /** Where the next value goes: each open object's key and each open array's next index. */
  #path(): JsonPath {
    return this.#stack.map((f) => (f.kind === 'object' ? f.key! : f.value.length));
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
      if (ch === '{') this.#target.objectStarts(this.#path());
      this.#stack.push(
        ch === '{'
          ? { kind: 'object', value: {}, key: undefined, expect: 'keyOrEnd' }
          : { kind: 'array', value: [], expect: 'valueOrEnd' },
      );
      return;
    }
    if (ch === '"') {
      this.#string = this.#target.streamed(this.#path()) ? 'content' : { raw: '', key: false };
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
}
