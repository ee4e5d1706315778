import { describe, expect, test } from 'vitest';
import { retrying, type FetchLike } from './retry.ts';

/** A server stand-in that answers from a list and records what it was sent. */
function answers(statuses: [number, Record<string, string>?][]) {
  const seen: string[] = [];
  const send: FetchLike = async (req) => {
    seen.push(await req.text());
    const [status, headers] = statuses[seen.length - 1] ?? [500];
    return new Response(JSON.stringify({ error: `s${status}`, message: 'm' }), { status, headers });
  };
  return { send, seen };
}

const waits = () => {
  const slept: number[] = [];
  return { slept, wait: (ms: number) => (slept.push(ms), Promise.resolve()) };
};

const request = () => new Request('http://127.0.0.1/api/v1/x', { method: 'POST', body: 'stdin bytes' });

describe('retrying', () => {
  test('429 is sent again after Retry-After, with the same body, until it passes', async () => {
    const { send, seen } = answers([[429, { 'retry-after': '2' }], [429], [200]]);
    const { slept, wait } = waits();
    const res = await retrying(send, { maxAttempts: 5 }, wait)(request());
    expect(res.status).toBe(200);
    expect(seen).toEqual(['stdin bytes', 'stdin bytes', 'stdin bytes']);
    // Retry-After: 2, then none (the default second).
    expect(slept).toEqual([2000, 1000]);
  });

  test('gives up after maxAttempts and returns the last 429', async () => {
    const { send, seen } = answers([[429, { 'retry-after': '1' }], [429, { 'retry-after': '1' }], [200]]);
    const { slept, wait } = waits();
    const res = await retrying(send, { maxAttempts: 2 }, wait)(request());
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(seen).toHaveLength(2);
    expect(slept).toEqual([1000]);
  });

  test('a long Retry-After is capped by maxDelaySeconds; other statuses are never retried', async () => {
    const capped = answers([[429, { 'retry-after': '3600' }], [200]]);
    const { slept, wait } = waits();
    expect(
      (await retrying(capped.send, { maxAttempts: 3, maxDelaySeconds: 4 }, wait)(request())).status,
    ).toBe(200);
    expect(slept).toEqual([4000]);
    for (const status of [503, 409, 403]) {
      const once = answers([[status, { 'retry-after': '1' }], [200]]);
      expect((await retrying(once.send, { maxAttempts: 3 }, wait)(request())).status).toBe(status);
      expect(once.seen).toHaveLength(1);
    }
  });

  test('an abort during the wait ends the call with the abort', async () => {
    const { send } = answers([[429, { 'retry-after': '30' }], [200]]);
    const abort = new AbortController();
    const req = new Request('http://127.0.0.1/api/v1/x', { method: 'POST', body: 'x', signal: abort.signal });
    const call = retrying(send, { maxAttempts: 3 })(req);
    setTimeout(() => abort.abort(new Error('stopped by the caller')), 20);
    await expect(call).rejects.toThrow('stopped by the caller');
  });
});
