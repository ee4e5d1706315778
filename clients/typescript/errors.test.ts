import { describe, expect, test } from 'vitest';
import {
  ApiError,
  ConflictError,
  FailedDependencyError,
  ForbiddenError,
  NotFoundError,
  TooManyRequestsError,
  UnauthorizedError,
  errorFromResponse,
  parseRetryAfter,
} from './errors.ts';

const NOW = Date.parse('2026-01-02T03:04:05Z');
const headers = (h: Record<string, string> = {}) => new Headers(h);

describe('errorFromResponse', () => {
  test.each([
    [401, UnauthorizedError, 'unauthorized'],
    [404, NotFoundError, 'not_found'],
    [409, ConflictError, 'not_running'],
    [424, FailedDependencyError, 'not_configured'],
    [400, ApiError, 'invalid_request'],
    [503, ApiError, 'unavailable'],
  ] as const)('%i is a %o with the body code and message', (status, Class, code) => {
    const body = { error: code, message: `said ${status}` };
    const err = errorFromResponse(status, headers(), body, NOW);
    expect(err).toBeInstanceOf(Class);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toBeInstanceOf(Error);
    expect(err.constructor).toBe(Class);
    expect({ status: err.status, code: err.code, message: err.message, body: err.body }).toEqual({
      status,
      code,
      message: `said ${status}`,
      body,
    });
  });

  test('403 policy_violation carries the violations and a message made of them', () => {
    const body = {
      error: 'policy_violation',
      violations: [
        { code: 'template_not_allowed', message: 'template x is not allowed' },
        { code: 'quota', message: 'too many sandboxes' },
      ],
    };
    const err = errorFromResponse(403, headers(), body, NOW);
    expect(err).toBeInstanceOf(ForbiddenError);
    expect((err as ForbiddenError).violations).toEqual(body.violations);
    expect(err.code).toBe('policy_violation');
    expect(err.message).toBe('template_not_allowed: template x is not allowed; quota: too many sandboxes');
  });

  test('403 that is not a policy has no violations', () => {
    const err = errorFromResponse(403, headers(), { error: 'forbidden', message: 'not yours' }, NOW);
    expect((err as ForbiddenError).violations).toEqual([]);
    expect(err.message).toBe('not yours');
  });

  test('429 reads Retry-After as seconds or as an HTTP date', () => {
    const body = { error: 'concurrency_exceeded', limit: 1, inflight: 1, message: 'retry after 5 seconds' };
    const secs = errorFromResponse(429, headers({ 'retry-after': '5' }), body, NOW);
    expect(secs).toBeInstanceOf(TooManyRequestsError);
    expect((secs as TooManyRequestsError).retryAfter).toBe(5);
    const date = errorFromResponse(
      429,
      headers({ 'retry-after': new Date(NOW + 7_500).toUTCString() }),
      body,
      NOW,
    );
    // toUTCString drops the milliseconds: 7 s after NOW, rounded up from 7.0.
    expect((date as TooManyRequestsError).retryAfter).toBe(7);
    expect((errorFromResponse(429, headers(), body, NOW) as TooManyRequestsError).retryAfter).toBe(undefined);
  });

  test('a body that is not the API JSON still gives a readable error', () => {
    const html = errorFromResponse(502, headers(), '<html>bad gateway</html>', NOW);
    expect({ code: html.code, message: html.message }).toEqual({
      code: 'http_502',
      message: '<html>bad gateway</html>',
    });
    const empty = errorFromResponse(500, headers(), undefined, NOW);
    expect({ code: empty.code, message: empty.message }).toEqual({ code: 'http_500', message: 'HTTP 500' });
    expect(empty.name).toBe('ApiError');
  });
});

describe('parseRetryAfter', () => {
  test.each([
    [null, undefined],
    ['0', 0],
    [' 12 ', 12],
    ['soon', undefined],
    ['-3', undefined],
    [new Date(NOW - 60_000).toUTCString(), 0],
  ])('%o is %o', (value, want) => {
    expect(parseRetryAfter(value, NOW)).toBe(want);
  });
});
