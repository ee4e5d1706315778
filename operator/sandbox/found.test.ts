import { describe, expect, test } from 'vitest';
import type { Stage } from '../../core/index.ts';
import type { Found, Pass, StepResult } from './context.ts';
import { NameConflict } from './conflict.ts';
import { inOrder, mapFound, run, together } from './found.ts';

const WAIT: Stage = { kind: 'Waiting', message: 'w' };
const cond = (type: string) => ({ type, ok: true, reason: 'R', message: '' });
const found = <T>(value: T, r: StepResult = {}): Promise<Found<T>> =>
  Promise.resolve({ ...r, stage: undefined, found: value });
const ended = (r: StepResult = {}): Promise<Found<never>> => Promise.resolve({ ...r, stage: WAIT });

describe('run', () => {
  const pass = {
    key: 'ns/s',
    sandbox: { status: {} },
    log: { warn: () => {} },
    d: { written: new Map(), event: () => Promise.resolve() },
  } as unknown as Pass;

  test('a step that finds nothing finds undefined; a stage ends it', async () => {
    expect(await run(pass, () => ({ requeueMs: 5 }))).toEqual({
      requeueMs: 5,
      stage: undefined,
      found: undefined,
    });
    expect(await run(pass, () => ({ stage: WAIT }))).toEqual({ stage: WAIT });
    expect((await run(pass, () => ({ found: 7 }))).found).toBe(7);
  });

  test('a NameConflict ends the pass; any other error fails it', async () => {
    const leaving = await run(pass, () => {
      throw new NameConflict('Secret', 's-sandboxd', true);
    });
    expect(leaving.stage?.kind).toBe('Waiting');
    const taken = await run(pass, () => {
      throw new NameConflict('Secret', 's-sandboxd', false);
    });
    expect(taken.stage?.kind).toBe('NameConflict');
    await expect(
      run(pass, () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
  });
});

describe('inOrder', () => {
  test('the next step takes what the first found; conditions in order, the soonest requeue', async () => {
    const r = await inOrder(found(2, { conditions: [cond('A')], requeueMs: 50 }), (n) =>
      found(n * 10, { conditions: [cond('B')], requeueMs: 20 }),
    );
    expect(r).toMatchObject({ found: 20, requeueMs: 20, conditions: [cond('A'), cond('B')] });
    expect(r.stage).toBeUndefined();
  });

  test('a first step that ends the pass runs no next one', async () => {
    let ran = false;
    const r = await inOrder(ended({ conditions: [cond('A')] }), () => {
      ran = true;
      return found(1);
    });
    expect(ran).toBe(false);
    expect(r).toMatchObject({ stage: WAIT, conditions: [cond('A')] });
  });

  test('a next step that ends the pass keeps the first one conditions and status', async () => {
    const r = await inOrder(found(1, { status: { forwardedPorts: [] } }), () =>
      ended({ conditions: [cond('B')] }),
    );
    expect(r).toMatchObject({ stage: WAIT, conditions: [cond('B')], status: { forwardedPorts: [] } });
    expect(r.found).toBeUndefined();
  });
});

describe('together', () => {
  test('both run at once; both found', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = gate.then(() => found('a'));
    // The second settles the first: they can only both finish when they run concurrently.
    const fast = found('b').then((r) => (release(), r));
    expect((await together(slow, fast)).found).toEqual(['a', 'b']);
  });

  test('the first stage among them ends the pass, with every one conditions', async () => {
    const other: Stage = { kind: 'PodFailing', message: 'x' };
    const r = await together(
      ended({ conditions: [cond('A')] }),
      Promise.resolve<Found<never>>({ stage: other, conditions: [cond('B')] }),
    );
    expect(r).toMatchObject({ stage: WAIT, conditions: [cond('A'), cond('B')] });
    expect((await together(found(1), ended())).stage).toEqual(WAIT);
  });

  test('status parts merge; the last Sandbox a step wrote is the one kept', async () => {
    const a = { metadata: { name: 'a' } } as never;
    const r = await together(
      found(1, { status: { forwardedPorts: [] }, sandbox: a }),
      found(2, { status: { lastActivityAt: 't', activeReasons: [] } }),
    );
    expect(r.status).toEqual({ forwardedPorts: [], lastActivityAt: 't', activeReasons: [] });
    expect(r.sandbox).toBe(a);
  });
});

describe('mapFound', () => {
  test('maps what was found, passes an ended pass through', async () => {
    expect(mapFound(await found([1, 2]), ([, b]) => b).found).toBe(2);
    expect(mapFound(await ended(), () => 1)).toEqual({ stage: WAIT });
  });
});
