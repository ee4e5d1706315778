import { describe, expect, test } from 'vitest';
import { ApiFailure } from './api.ts';
import { Clipped, ToolFailure, clip, failure, guarded } from './results.ts';

describe('Clipped', () => {
  test('keeps what fits whole, in any split', () => {
    expect(clip('abc', 4)).toEqual({ text: 'abc' });
    expect(new Clipped(4).push('ab').push('').push('cd').result()).toEqual({ text: 'abcd' });
  });

  test('past the bound: the head and the tail, and a note counting what was cut', () => {
    const c = new Clipped(4);
    for (const part of ['ab', 'cdef', 'g', 'hij']) c.push(part);
    expect(c.result()).toEqual({
      text: 'ab\n[… 6 characters cut …]\nij',
      note: '6 of 10 characters were cut from the middle (at most 4 are answered)',
    });
  });
});

describe('failure', () => {
  const body = (r: ReturnType<typeof failure>) =>
    JSON.parse((r.content[0] as { text: string }).text) as unknown;

  test('an API refusal keeps its status, code, message and extra fields', () => {
    const r = failure(new ApiFailure(403, { error: 'forbidden', message: 'no', violations: [] }));
    expect(r.isError).toBe(true);
    expect(body(r)).toEqual({ status: 403, error: 'forbidden', message: 'no', violations: [] });
  });

  test('a body that is not the API’s, a tool’s own failure, an API out of reach', () => {
    expect(body(failure(new ApiFailure(502, { message: '<html>bad gateway</html>' })))).toEqual({
      status: 502,
      error: 'http_502',
      message: '<html>bad gateway</html>',
    });
    expect(body(failure(new ToolFailure('timeout', 'not Running')))).toEqual({
      error: 'timeout',
      message: 'not Running',
    });
    expect(body(failure(new TypeError('fetch failed')))).toEqual({
      error: 'unavailable',
      message: 'the API could not be reached: fetch failed',
    });
  });

  test('guarded turns a throw into a tool error', async () => {
    const r = await guarded(() =>
      Promise.reject(new ApiFailure(404, { error: 'not_found', message: 'gone' })),
    );
    expect(r).toMatchObject({ isError: true });
  });
});
