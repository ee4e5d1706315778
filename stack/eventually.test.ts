import { describe, expect, test } from 'vitest';
import { eventually } from './eventually.ts';

describe('eventually', () => {
  test('resolves with the first answer that is awaited, reading until then', async () => {
    let reads = 0;
    const got = await eventually(() => ++reads, {
      timeoutMs: 5_000,
      intervalMs: 1,
      until: (n) => n === 3,
      describe: '3',
    });
    expect(got).toBe(3);
    expect(reads).toBe(3);
  });

  test('by default awaits a truthy answer; a read that throws counts as not yet', async () => {
    let reads = 0;
    const got = await eventually(
      () => {
        if (++reads < 3) throw new Error('not up');
        return reads === 3 ? 0 : 'up';
      },
      { timeoutMs: 5_000, intervalMs: 1, describe: 'up' },
    );
    expect(got).toBe('up');
    expect(reads).toBe(4);
  });

  test('at the timeout names what was awaited and the last answer (or the part shown)', async () => {
    const started = Date.now();
    await expect(
      eventually(() => ({ status: { phase: 'Pending' }, metadata: { managedFields: [] } }), {
        timeoutMs: 200,
        intervalMs: 20,
        until: (s) => s.status.phase === 'Running',
        show: (s) => s.status,
        describe: () => 'box Running',
      }),
    ).rejects.toThrow('timed out after 200 ms waiting for box Running; last answer: {"phase":"Pending"}');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  test('at the timeout names the last error when every read threw', async () => {
    await expect(
      eventually(
        () => {
          throw new Error('connect ECONNREFUSED');
        },
        { timeoutMs: 50, intervalMs: 10, describe: 'the API' },
      ),
    ).rejects.toThrow('timed out after 50 ms waiting for the API; last error: connect ECONNREFUSED');
  });

  test('a yes-or-no probe: the message is what was awaited, as describe() tells it then', async () => {
    let n = 0;
    await expect(
      eventually(() => ++n > 1_000_000, {
        timeoutMs: 50,
        intervalMs: 10,
        describe: () => `n past a million (n ${n})`,
      }),
    ).rejects.toThrow(/^timed out after 50 ms waiting for n past a million \(n \d+\)$/);
  });
});
