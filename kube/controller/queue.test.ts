import { pino } from 'pino';
import { describe, expect, test, vi } from 'vitest';
import type { Clock } from './clock.ts';
import { DEFAULT_MAX_CONCURRENT, TerminalError, WorkQueue } from './queue.ts';

/** A pino logger whose lines land, parsed, in `lines`. */
function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'debug' },
    { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) },
  );
  return { lines, logger };
}

describe('work queue', () => {
  test('each reconcile logs through a child carrying the controller, the key and its own id', async () => {
    const { lines, logger } = capture();
    let failOnce = true;
    const queue = new WorkQueue(
      (key, log) => {
        log.info({ step: 'inside' }, 'working');
        if (key === 'ns/b' && failOnce) {
          failOnce = false;
          return Promise.reject(new Error('boom'));
        }
        return Promise.resolve();
      },
      logger,
      { controller: 'sandbox' },
    );
    queue.add('ns/a');
    queue.add('ns/b');
    await expect.poll(() => lines.filter((l) => l.msg === 'reconciled').length).toBe(2);
    await queue.stop();

    const of = (name: string) => lines.filter((l) => l.name === name);
    for (const l of lines) expect(l).toMatchObject({ controller: 'sandbox', namespace: 'ns' });
    expect(of('a').map((l) => l.msg)).toEqual(['working', 'reconciled']);
    expect(of('b').map((l) => l.msg)).toEqual(['working', 'reconcile failed', 'working', 'reconciled']);
    // One id per pass: the retry of b is a pass of its own.
    const ids = (name: string) => new Set(of(name).map((l) => l.reconcileId));
    expect(ids('a').size).toBe(1);
    expect(ids('b').size).toBe(2);
    // The error with its stack, so a failure says where it came from.
    const failed = of('b').find((l) => l.msg === 'reconcile failed');
    expect(failed).toMatchObject({ err: { type: 'Error', message: 'boom' }, failures: 1 });
    expect((failed?.err as { stack: string }).stack).toMatch(/^Error: boom\n {4}at /);
  });
});

/** A reconcile that records when each key starts and holds it until `release`. */
function holding() {
  const started: { key: string; at: number }[] = [];
  const waiting = new Map<string, () => void>();
  let running = 0;
  let most = 0;
  const reconcile = (key: string) => {
    started.push({ key, at: Date.now() });
    running++;
    most = Math.max(most, running);
    return new Promise<void>((resolve) =>
      waiting.set(key, () => {
        running--;
        waiting.delete(key);
        resolve();
      }),
    );
  };
  return {
    started,
    reconcile,
    release: (key: string) => waiting.get(key)?.(),
    get running() {
      return running;
    },
    get most() {
      return most;
    },
  };
}

describe('work queue scheduling', () => {
  const silent = pino({ level: 'silent' });

  test('runs at most maxConcurrent reconciles at once; the rest wait in arrival order', async () => {
    const h = holding();
    const queue = new WorkQueue(h.reconcile, silent, { maxConcurrent: 2 });
    for (const k of ['ns/a', 'ns/b', 'ns/c', 'ns/d', 'ns/e']) queue.add(k);
    await expect.poll(() => h.started.length).toBe(2);
    expect(queue.depth).toBe(5);
    h.release('ns/b');
    await expect.poll(() => h.started.length).toBe(3);
    h.release('ns/a');
    h.release('ns/c');
    await expect.poll(() => h.started.length).toBe(5);
    h.release('ns/d');
    h.release('ns/e');
    await expect.poll(() => h.running).toBe(0);
    expect(h.most).toBe(2);
    expect(h.started.map((s) => s.key)).toEqual(['ns/a', 'ns/b', 'ns/c', 'ns/d', 'ns/e']);
    await queue.stop();
  });

  test('one reconcile per key at a time: adds during it merge into one rerun after it', async () => {
    const h = holding();
    const queue = new WorkQueue(h.reconcile, silent);
    queue.add('ns/a');
    queue.add('ns/a');
    queue.add('ns/a');
    await expect.poll(() => h.started.length).toBe(1);
    h.release('ns/a');
    await expect.poll(() => h.started.length).toBe(2);
    expect(h.most).toBe(1);
    h.release('ns/a');
    await expect.poll(() => h.running).toBe(0);
    expect(h.started).toHaveLength(2);
    await queue.stop();
  });

  test('the earliest requeue wins, whichever order the timers come in', async () => {
    vi.useFakeTimers();
    try {
      const calls: number[] = [];
      const t0 = Date.now();
      const queue = new WorkQueue(() => {
        calls.push(Date.now() - t0);
        return Promise.resolve();
      }, silent);
      queue.add('ns/a', 5_000);
      queue.add('ns/a', 100);
      queue.add('ns/a', 3_000);
      await vi.advanceTimersByTimeAsync(150);
      expect(calls).toEqual([100]);
      // The later timers were replaced, not kept: nothing more runs.
      await vi.advanceTimersByTimeAsync(10_000);
      expect(calls).toEqual([100]);
      await queue.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  test('a failing key backs off exponentially up to the cap; a success resets its backoff', async () => {
    vi.useFakeTimers();
    try {
      const calls: number[] = [];
      const t0 = Date.now();
      // Fails four times, succeeds once (asking to look again in 1 s), then fails again.
      const outcomes = ['fail', 'fail', 'fail', 'fail', 'ok', 'fail', 'ok'];
      const queue = new WorkQueue(
        () => {
          calls.push(Date.now() - t0);
          return outcomes.shift() === 'fail' ? Promise.reject(new Error('boom')) : Promise.resolve(1000);
        },
        silent,
        // The jitter at its top: the per-key backoff whole, so the gaps are exact.
        { retry: { baseMs: 100, maxMs: 500 }, random: () => 0.999_999 },
      );
      queue.add('ns/a');
      await vi.advanceTimersByTimeAsync(5_000);
      const gaps = calls.slice(1).map((t, i) => t - calls[i]!);
      // 100, 200, 400, then capped at 500; the success's own requeue (1000); then 100 again.
      expect(gaps.slice(0, 6)).toEqual([100, 200, 400, 500, 1000, 100]);
      await queue.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});

/** A clock whose time moves only when `advance` says; due timers fire in time order. */
class FakeClock implements Clock {
  #now = 1_000_000;
  #timers: { at: number; fn: () => void; live: boolean }[] = [];

  now(): number {
    return this.#now;
  }

  after(ms: number, fn: () => void) {
    const t = { at: this.#now + ms, fn, live: true };
    this.#timers.push(t);
    return { cancel: () => void (t.live = false) };
  }

  /** Moves time to `now + ms`, firing each due timer at its own time and letting the work it starts settle. */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    for (;;) {
      await settle();
      const due = this.#timers.filter((t) => t.live && t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      due.live = false;
      this.#now = due.at;
      due.fn();
    }
    this.#now = end;
    await settle();
  }
}

/** Lets resolved promises run their continuations (a reconcile and the queue's bookkeeping). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

describe("work queue: controller-runtime's semantics on a fake clock", () => {
  const silent = pino({ level: 'silent' });

  test('a TerminalError is not retried, is handed to onTerminal, and a later add runs the key again', async () => {
    const clock = new FakeClock();
    const { lines, logger } = capture();
    const calls: string[] = [];
    const told: { key: string; message: string }[] = [];
    const queue = new WorkQueue(
      (key) => {
        calls.push(key);
        return Promise.reject(new TerminalError('spec.image is not a valid reference'));
      },
      logger,
      { clock, onTerminal: (key, err) => void told.push({ key, message: err.message }) },
    );
    queue.add('ns/a');
    await clock.advance(3_600_000);
    expect(calls).toEqual(['ns/a']);
    expect(told).toEqual([{ key: 'ns/a', message: 'spec.image is not a valid reference' }]);
    expect(queue.depth).toBe(0);
    const line = lines.find((l) => l.level === 50);
    expect(line).toMatchObject({
      msg: 'reconcile failed for good: not retried until the object changes',
      err: { type: 'TerminalError', message: 'spec.image is not a valid reference' },
    });
    expect((line?.err as { stack: string }).stack).toMatch(/^TerminalError: spec\.image/);
    // The object changed (an informer's add): it is looked at again.
    queue.add('ns/a');
    await clock.advance(0);
    expect(calls).toEqual(['ns/a', 'ns/a']);
    await queue.stop();
  });

  test('a failing onTerminal is logged and does not stop the queue', async () => {
    const clock = new FakeClock();
    const { lines, logger } = capture();
    let n = 0;
    const queue = new WorkQueue(
      () => (n++ === 0 ? Promise.reject(new TerminalError('bad')) : Promise.resolve()),
      logger,
      { clock, onTerminal: () => Promise.reject(new Error('apiserver gone')) },
    );
    queue.add('ns/a');
    await clock.advance(0);
    queue.add('ns/a');
    await clock.advance(0);
    expect(n).toBe(2);
    expect(lines.map((l) => l.msg)).toContain('saying why a reconcile failed for good failed');
    await queue.stop();
  });

  test('the per-key backoff is jittered between half and all of base·2^(n-1), within the cap', async () => {
    for (const [random, want] of [
      [0, [50, 100, 200, 400, 500, 500]],
      [0.5, [75, 150, 300, 600, 750, 750]],
    ] as const) {
      const clock = new FakeClock();
      const times: number[] = [];
      const queue = new WorkQueue(
        () => {
          times.push(clock.now());
          return Promise.reject(new Error('boom'));
        },
        silent,
        { clock, random: () => random, retry: { baseMs: 100, maxMs: 1_000 } },
      );
      queue.add('ns/a');
      await clock.advance(3_000);
      await queue.stop();
      const gaps = times.slice(1, 7).map((t, i) => t - times[i]!);
      expect(gaps).toEqual(want);
    }
  });

  test('the overall bucket bounds a mass failure: past the burst, retries start at its rate, not all at once', async () => {
    const clock = new FakeClock();
    const tried = new Map<string, number>();
    const queue = new WorkQueue(
      (key) => {
        tried.set(key, (tried.get(key) ?? 0) + 1);
        return Promise.reject(new Error('apiserver unavailable'));
      },
      silent,
      {
        clock,
        maxConcurrent: 1_000,
        random: () => 0.999_999,
        retry: { baseMs: 10, maxMs: 10, perSecond: 10, burst: 5 },
      },
    );
    const keys = Array.from({ length: 50 }, (_, i) => `ns/s${i}`);
    for (const k of keys) queue.add(k);
    await clock.advance(0);
    expect([...tried.values()].reduce((a, b) => a + b, 0)).toBe(50);
    // Per key, a retry would come 10 ms later; the bucket lets 5 go at once and then 10 a second.
    await clock.advance(10);
    expect([...tried.values()].reduce((a, b) => a + b, 0)).toBe(55);
    await clock.advance(1_000);
    // The other 45 first retries were spread at 100 ms apiece (10 per second), plus the
    // first 5's own second retries taking their turn in the bucket behind them.
    const total = [...tried.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(55 + 10 - 1);
    expect(total).toBeLessThanOrEqual(55 + 10 + 1);
    await queue.stop();
  });

  test(`without maxConcurrent at most ${DEFAULT_MAX_CONCURRENT} reconciles run at once`, async () => {
    const h = holding();
    const queue = new WorkQueue(h.reconcile, silent);
    for (let i = 0; i < 20; i++) queue.add(`ns/s${i}`);
    await expect.poll(() => h.started.length).toBe(DEFAULT_MAX_CONCURRENT);
    // Release whatever runs, batch after batch, until all 20 have run.
    await expect
      .poll(() => {
        for (let i = 0; i < 20; i++) h.release(`ns/s${i}`);
        return h.started.length === 20 && h.running === 0;
      })
      .toBe(true);
    expect(h.most).toBe(DEFAULT_MAX_CONCURRENT);
    await queue.stop();
  });

  test('requeues wait on the injected clock, not the process', async () => {
    const clock = new FakeClock();
    const at: number[] = [];
    const t0 = clock.now();
    const queue = new WorkQueue(
      () => {
        at.push(clock.now() - t0);
        return Promise.resolve(at.length < 3 ? 60_000 : undefined);
      },
      silent,
      { clock },
    );
    queue.add('ns/a');
    await clock.advance(600_000);
    expect(at).toEqual([0, 60_000, 120_000]);
    await queue.stop();
  });
});
