import { pino } from 'pino';
import { describe, expect, test } from 'vitest';
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
