/** One Server-Sent Event: its name (`message` when unnamed) and its data lines joined. */
export interface SseMessage {
  event: string;
  data: string;
  /** The event's `id:`, when the parser was asked for ids and the event carried one. */
  id?: string;
}

/**
 * The default bound on one event, in characters of text (about bytes, for the ASCII JSON
 * these streams carry): a `log` event holds at most 64 KiB of output, which JSON escaping
 * can grow a few times over, and a `result` is small. Far past both, and small enough that
 * a peer that never ends an event cannot make a reader hold more than this.
 */
export const SSE_MAX_EVENT_SIZE = 16 * 1024 * 1024;

/** An event (its lines so far, and a line not yet ended) past the parser's `maxEventSize`. */
export class SseEventTooLarge extends Error {
  readonly maxEventSize: number;

  constructor(maxEventSize: number) {
    super(`an SSE event is larger than ${maxEventSize} characters: the stream is refused`);
    this.name = 'SseEventTooLarge';
    this.maxEventSize = maxEventSize;
  }
}

/**
 * An incremental SSE parser: feed it text as it arrives, in any split, and it returns the
 * events completed so far. Comments (keepalives) are skipped; multi-line data is joined
 * with `\n`; CRLF and LF both end lines. An event larger than `maxEventSize` (its lines
 * so far plus a line not yet ended) throws `SseEventTooLarge` from `push`; the parser is
 * then done with, as is the stream it read.
 */
export class SseParser {
  readonly #max: number;
  readonly #ids: boolean;
  #buffer = '';
  #event = '';
  #id: string | undefined;
  #data: string[] = [];
  /** Characters of the event so far: its field values and line ends. */
  #size = 0;

  /** `ids`: each message carries its event's `id:` (a run's events are numbered). */
  constructor(opts: { maxEventSize?: number; ids?: boolean } = {}) {
    this.#max = opts.maxEventSize ?? SSE_MAX_EVENT_SIZE;
    this.#ids = opts.ids ?? false;
  }

  push(text: string): SseMessage[] {
    // No concatenation when nothing is left over: a stream of whole events is never copied.
    const buffer = this.#buffer === '' ? text : this.#buffer + text;
    const out: SseMessage[] = [];
    // Line ends found with indexOf (memchr) rather than a regular expression: a `log` event's
    // data line is up to 64 KiB of text without one. `cr` is the next CR, -1 once none is left.
    let cr = buffer.indexOf('\r');
    let start = 0;
    for (;;) {
      const lf = buffer.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = buffer.indexOf('\r', start);
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        // A CR that ends the text so far may be the first half of a CRLF split across pushes:
        // wait for the next push rather than read it and the LF after it as two line ends.
        if (cr === buffer.length - 1) break;
        end = cr;
        next = cr + 1 === lf ? lf + 1 : cr + 1;
      } else if (lf !== -1) {
        end = lf;
        next = lf + 1;
      } else break;
      this.#line(buffer.slice(start, end), out);
      start = next;
    }
    // One slice per push, not per line: a large chunk of many lines stays linear.
    this.#buffer = start === 0 ? buffer : buffer.slice(start);
    // A line without an end is part of the event too: checked here, or a peer that never
    // sends one would grow the buffer without bound.
    if (this.#size + this.#buffer.length > this.#max) throw new SseEventTooLarge(this.#max);
    return out;
  }

  #line(line: string, out: SseMessage[]): void {
    if (line === '') {
      if (this.#data.length > 0)
        out.push({
          event: this.#event || 'message',
          data: this.#data.length === 1 ? this.#data[0]! : this.#data.join('\n'),
          ...(this.#ids && this.#id !== undefined ? { id: this.#id } : {}),
        });
      this.#event = '';
      this.#id = undefined;
      this.#data = [];
      this.#size = 0;
      return;
    }
    if (line.startsWith(':')) return;
    this.#size += line.length + 1;
    if (this.#size > this.#max) throw new SseEventTooLarge(this.#max);
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    // One leading space is not part of the value; slicing it off copies nothing.
    const value = colon < 0 ? '' : line.slice(line.startsWith(' ', colon + 1) ? colon + 2 : colon + 1);
    if (field === 'event') this.#event = value;
    else if (field === 'data') this.#data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.#id = value;
  }
}
