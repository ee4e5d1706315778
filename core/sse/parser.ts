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
    this.#buffer += text;
    const out: SseMessage[] = [];
    const lineEnd = /\r\n|\n|\r/g;
    let start = 0;
    for (let m = lineEnd.exec(this.#buffer); m !== null; m = lineEnd.exec(this.#buffer)) {
      // A CR that ends the text so far may be the first half of a CRLF split across pushes:
      // wait for the next push rather than read it and the LF after it as two line ends.
      if (m[0] === '\r' && m.index === this.#buffer.length - 1) break;
      this.#line(this.#buffer.slice(start, m.index), out);
      start = m.index + m[0].length;
    }
    // One slice per push, not per line: a large chunk of many lines stays linear.
    this.#buffer = this.#buffer.slice(start);
    return out;
  }

  #line(line: string, out: SseMessage[]): void {
    if (line === '') {
      if (this.#data.length > 0) out.push({ event: this.#event || 'message', data: this.#data.join('\n') });
      this.#event = '';
      this.#data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') this.#event = value;
    else if (field === 'data') this.#data.push(value);
  }
}
