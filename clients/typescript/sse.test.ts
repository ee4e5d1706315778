import { describe, expect, test } from 'vitest';
import type { InvokeEvents } from './client.ts';
import { sseEventNames } from './generated/sse-events.ts';
import { EventStream } from './sse.ts';

const encoder = new TextEncoder();

/** A body that sends `chunks` as they are split, and records whether it was canceled. */
function body(chunks: (string | Uint8Array)[]) {
  const state = { canceled: false, pulled: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[state.pulled++];
      if (next === undefined) return controller.close();
      controller.enqueue(typeof next === 'string' ? encoder.encode(next) : next);
    },
    cancel() {
      state.canceled = true;
    },
  });
  return { stream, state };
}

const invokeStream = (chunks: (string | Uint8Array)[]) => {
  const b = body(chunks);
  return { events: new EventStream<InvokeEvents>(b.stream, sseEventNames.invokeSandbox), state: b.state };
};

const WIRE =
  'event: start\ndata: {"invokeId":"i-1","startedAt":"2026-01-01T00:00:00Z"}\n\n' +
  ': keepalive\n\n' +
  'event: log\ndata: {"stream":"stdout","data":"héllo\\n"}\n\n' +
  'event: log\r\ndata: {"stream":"stderr","data":"oops"}\r\n\r\n' +
  'event: exit\ndata: {"invokeId":"i-1","exitCode":3,"durationMs":12,"reason":"completed"}\n\n';

describe('EventStream', () => {
  test("aborting the call's signal ends a stream that is waiting, with the abort's reason, and cancels its body", async () => {
    // A body that sends one event and then never another, as a quiet watch does.
    const state = { canceled: false };
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('event: start\ndata: {"invokeId":"i-1","startedAt":"x"}\n\n'));
      },
      cancel() {
        state.canceled = true;
      },
    });
    const ctrl = new AbortController();
    const events = new EventStream<InvokeEvents>(stream, sseEventNames.invokeSandbox, {
      signal: ctrl.signal,
    });
    const seen: string[] = [];
    const read = (async () => {
      for await (const e of events) {
        seen.push(e.event);
        ctrl.abort(new Error('stopped by the caller'));
      }
    })();
    await expect(read).rejects.toThrow('stopped by the caller');
    expect(seen).toEqual(['start']);
    expect(state.canceled).toBe(true);
  });

  test('a signal aborted before the stream is read ends it at once', async () => {
    const b = body([WIRE]);
    const ctrl = new AbortController();
    ctrl.abort(new Error('already stopped'));
    const events = new EventStream<InvokeEvents>(b.stream, sseEventNames.invokeSandbox, {
      signal: ctrl.signal,
    });
    await expect(events.toArray()).rejects.toThrow('already stopped');
    expect(b.state.canceled).toBe(true);
  });

  test('yields typed events in order, whatever the chunking (even inside a UTF-8 character)', async () => {
    const bytes = encoder.encode(WIRE);
    const want = [
      { event: 'start', data: { invokeId: 'i-1', startedAt: '2026-01-01T00:00:00Z' } },
      { event: 'log', data: { stream: 'stdout', data: 'héllo\n' } },
      { event: 'log', data: { stream: 'stderr', data: 'oops' } },
      { event: 'exit', data: { invokeId: 'i-1', exitCode: 3, durationMs: 12, reason: 'completed' } },
    ];
    for (const size of [1, 2, 3, 7, 64, bytes.length]) {
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.slice(i, i + size));
      expect(await invokeStream(chunks).events.toArray()).toEqual(want);
    }
  });

  test('the data is typed by event name', async () => {
    const { events } = invokeStream([WIRE]);
    const codes: number[] = [];
    for await (const e of events) {
      // Narrowing on `event` types `data`: ExitEvent has exitCode, LogEvent has stream.
      if (e.event === 'exit') codes.push(e.data.exitCode);
      if (e.event === 'log') expect(['stdout', 'stderr']).toContain(e.data.stream);
    }
    expect(codes).toEqual([3]);
  });

  test('events the operation does not document are skipped', async () => {
    const { events } = invokeStream([
      'event: progress\ndata: {"pct":50}\n\n',
      'data: {"unnamed":true}\n\n',
      'event: error\ndata: {"code":"sandbox_unreachable","message":"gone"}\n\n',
    ]);
    expect(await events.toArray()).toEqual([
      { event: 'error', data: { code: 'sandbox_unreachable', message: 'gone' } },
    ]);
  });

  test('leaving the loop early cancels the body (the connection closes)', async () => {
    const { events, state } = invokeStream([WIRE, 'event: log\ndata: {"stream":"stdout","data":"x"}\n\n']);
    for await (const e of events) {
      expect(e.event).toBe('start');
      break;
    }
    expect(state.canceled).toBe(true);
  });

  test('a stream read to its end is not canceled; a second iteration is refused', async () => {
    const { events, state } = invokeStream([WIRE]);
    expect(await events.toArray()).toHaveLength(4);
    expect(state.canceled).toBe(false);
    await expect(events.toArray()).rejects.toThrow('an event stream can be iterated once');
  });

  test('data that is not JSON is an error naming the event', async () => {
    const { events, state } = invokeStream(['event: log\ndata: not json\n\n', WIRE]);
    await expect(events.toArray()).rejects.toThrow('the data of a log event is not JSON: not json');
    expect(state.canceled).toBe(true);
  });

  test('cancel() before reading closes the body', async () => {
    const { events, state } = invokeStream([WIRE]);
    await events.cancel();
    expect(state.canceled).toBe(true);
  });
});
