import { pino } from 'pino';
import { describe, expect, test, vi } from 'vitest';
import { WorkQueue } from './queue.ts';

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
    expect(of('b').find((l) => l.msg === 'reconcile failed')).toMatchObject({ err: 'boom' });
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
        { backoffBaseMs: 100, backoffMaxMs: 500 },
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
