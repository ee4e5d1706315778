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
    for (;;) {
      const nl = this.#buffer.search(/\r\n|\n|\r/);
      if (nl < 0) break;
      const width = this.#buffer.startsWith('\r\n', nl) ? 2 : 1;
      const line = this.#buffer.slice(0, nl);
      this.#buffer = this.#buffer.slice(nl + width);
      if (line === '') {
        if (this.#data.length > 0) out.push({ event: this.#event || 'message', data: this.#data.join('\n') });
        this.#event = '';
        this.#data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') this.#event = value;
      else if (field === 'data') this.#data.push(value);
    }
    return out;
  }
}
