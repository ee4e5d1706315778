import { describe, expect, it } from 'vitest';
import { SSE_MAX_EVENT_SIZE, SseEventTooLarge, SseParser } from './parser.ts';

describe('SseParser', () => {
  it('reads a CRLF split across two pushes as one line end', () => {
    const p = new SseParser();
    expect(p.push('event: log\r\ndata: a\r')).toEqual([]);
    expect(p.push('\ndata: b\r\n\r\n')).toEqual([{ event: 'log', data: 'a\nb' }]);
  });

  it('takes a lone CR as a line end once more text follows it', () => {
    const p = new SseParser();
    expect(p.push('data: x\r')).toEqual([]);
    expect(p.push('\r')).toEqual([]);
    expect(p.push('data: y\n\n')).toEqual([
      { event: 'message', data: 'x' },
      { event: 'message', data: 'y' },
    ]);
  });

  it('parses text split at every character, skipping comments', () => {
    const text = ': keepalive\n\nevent: start\ndata: {"a":1}\n\nevent: exit\ndata: {"exitCode":0}\n\n';
    const p = new SseParser();
    const out = [...text].flatMap((ch) => p.push(ch));
    expect(out).toEqual([
      { event: 'start', data: '{"a":1}' },
      { event: 'exit', data: '{"exitCode":0}' },
    ]);
  });

  it('parses many events in one push', () => {
    const text = 'data: 1\n\n'.repeat(10_000);
    const out = new SseParser().push(text);
    expect(out).toHaveLength(10_000);
    expect(out[9_999]).toEqual({ event: 'message', data: '1' });
  });

  it('gives the same events however the text is split, for every kind of line end', () => {
    const text =
      'event: log\r\ndata:no space\r\ndata:  two spaces\r\n\r\n' +
      ': comment\rdata\revent\n\n' +
      'event: exit\ndata: {"a":"é"}\r\rdata: last\n\n';
    const whole = new SseParser().push(text);
    expect(whole).toEqual([
      { event: 'log', data: 'no space\n two spaces' },
      { event: 'message', data: '' },
      { event: 'exit', data: '{"a":"é"}' },
      { event: 'message', data: 'last' },
    ]);
    for (let i = 0; i <= text.length; i++)
      for (let j = i; j <= text.length; j += 7) {
        const p = new SseParser();
        const out = [text.slice(0, i), text.slice(i, j), text.slice(j)].flatMap((part) => p.push(part));
        expect(out).toEqual(whole);
      }
  });
});

describe('SseParser bounds', () => {
  it('refuses an event whose data grows past maxEventSize, across lines and pushes', () => {
    const p = new SseParser({ maxEventSize: 100 });
    expect(p.push(`data: ${'a'.repeat(60)}\n`)).toEqual([]);
    expect(() => p.push(`data: ${'b'.repeat(60)}\n`)).toThrow(SseEventTooLarge);
  });

  it('refuses a line that never ends once it passes maxEventSize, before it ends', () => {
    const p = new SseParser({ maxEventSize: 1000 });
    expect(p.push('event: log\ndata: ')).toEqual([]);
    for (let i = 0; i < 9; i++) expect(p.push('x'.repeat(100))).toEqual([]);
    expect(() => p.push('x'.repeat(100))).toThrow(
      'an SSE event is larger than 1000 characters: the stream is refused',
    );
  });

  it('takes events up to the bound, and counts each event afresh', () => {
    const p = new SseParser({ maxEventSize: 100 });
    const data = 'z'.repeat(80); // 98 characters with its field names and line ends
    for (let i = 0; i < 50; i++)
      expect(p.push(`event: log\ndata: ${data}\n\n`)).toEqual([{ event: 'log', data }]);
  });

  it('bounds events at 16 MiB by default', () => {
    expect(SSE_MAX_EVENT_SIZE).toBe(16 * 1024 * 1024);
    const p = new SseParser();
    const big = 'y'.repeat(SSE_MAX_EVENT_SIZE - 100);
    expect(p.push(`data: ${big}\n\n`)).toEqual([{ event: 'message', data: big }]);
    expect(() => p.push(`data: ${big}${'y'.repeat(200)}`)).toThrow(SseEventTooLarge);
  });

  it('with ids, each event carries its own id line; without, none', () => {
    const text = 'id: 1\nevent: start\ndata: {}\n\nevent: log\ndata: x\n\nid: 3\ndata: y\n\n';
    expect(new SseParser({ ids: true }).push(text)).toEqual([
      { event: 'start', data: '{}', id: '1' },
      { event: 'log', data: 'x' },
      { event: 'message', data: 'y', id: '3' },
    ]);
    expect(new SseParser().push(text)[0]).toStrictEqual({ event: 'start', data: '{}' });
  });
});
