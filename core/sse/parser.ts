/** One Server-Sent Event: its name (`message` when unnamed) and its data lines joined. */
export interface SseMessage {
  event: string;
  data: string;
}

/**
 * An incremental SSE parser: feed it text as it arrives, in any split, and it returns the
 * events completed so far. Comments (keepalives) are skipped; multi-line data is joined
 * with `\n`; CRLF and LF both end lines.
 */
export class SseParser {
  #buffer = '';
  #event = '';
  #data: string[] = [];

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
    return out;
  }

  #line(line: string, out: SseMessage[]): void {
    if (line === '') {
      if (this.#data.length > 0)
        out.push({
          event: this.#event || 'message',
          data: this.#data.length === 1 ? this.#data[0]! : this.#data.join('\n'),
        });
      this.#event = '';
      this.#data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    // One leading space is not part of the value; slicing it off copies nothing.
    const value = colon < 0 ? '' : line.slice(line.startsWith(' ', colon + 1) ? colon + 2 : colon + 1);
    if (field === 'event') this.#event = value;
    else if (field === 'data') this.#data.push(value);
  }
}
