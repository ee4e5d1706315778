import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../errors/index.ts';
import { fromKube, kubeHttpError } from './kube-errors.ts';

/** An apiserver refusal as client-node raises it: the status code, the Status body, headers. */
const refusal = (code: number, status: object, headers: Record<string, string> = {}) =>
  new ApiException(code, 'refused', JSON.stringify({ kind: 'Status', code, ...status }), headers);

const answer = (err: unknown) => {
  const mapped = kubeHttpError(err, 'sandbox x');
  return mapped && { status: mapped.status, body: mapped.body(), headers: mapped.headers };
};

describe('kubeHttpError', () => {
  it('keeps 404 and 409 with the apiserver message', () => {
    expect(answer(refusal(404, { message: 'namespaces "nope" not found', reason: 'NotFound' }))).toEqual({
      status: 404,
      body: { error: 'not_found', message: 'sandbox x: namespaces "nope" not found' },
      headers: {},
    });
    expect(answer(refusal(409, { message: 'sandboxes.svc.io "x" already exists' }))).toEqual({
      status: 409,
      body: { error: 'conflict', message: 'sandbox x: sandboxes.svc.io "x" already exists' },
      headers: {},
    });
  });

  it('turns 422 and 400 into 400 with the field causes', () => {
    const invalid = refusal(422, {
      message: 'Sandbox.svc.io "x" is invalid: metadata.name: Invalid value',
      details: { causes: [{ field: 'metadata.name', message: 'Invalid value' }] },
    });
    expect(answer(invalid)).toEqual({
      status: 400,
      body: {
        error: 'invalid_request',
        message: 'sandbox x: Sandbox.svc.io "x" is invalid: metadata.name: Invalid value',
        fields: [{ path: 'metadata.name', message: 'Invalid value' }],
      },
      headers: {},
    });
    expect(answer(refusal(400, { message: 'bad' }))?.status).toBe(400);
  });

  it('answers 403 naming what the service may not do', () => {
    const message =
      'sandboxes.svc.io is forbidden: User "system:serviceaccount:svc-system:svc-api" cannot create resource "sandboxes" in API group "svc.io" in the namespace "kube-system"';
    expect(answer(refusal(403, { message, reason: 'Forbidden' }))).toEqual({
      status: 403,
      body: {
        error: 'forbidden',
        message: `sandbox x: the service is not allowed to do this in the cluster: ${message}`,
      },
      headers: {},
    });
  });

  it('answers throttling (429) with 503 and the apiserver Retry-After', () => {
    const throttled = refusal(
      429,
      { message: 'too many requests', details: { retryAfterSeconds: 3 } },
      {
        'retry-after': '3',
      },
    );
    expect(answer(throttled)).toEqual({
      status: 503,
      body: {
        error: 'cluster_unavailable',
        message: 'sandbox x: the Kubernetes API is throttling the service; retry shortly',
      },
      headers: { 'retry-after': '3' },
    });
  });

  it('answers 5xx and a rejected service credential with 503 Retry-After 1', () => {
    for (const code of [500, 503, 504, 401]) {
      const mapped = kubeHttpError(refusal(code, { message: 'x' }));
      expect([mapped?.status, mapped?.code, mapped?.headers]).toEqual([
        503,
        'cluster_unavailable',
        { 'retry-after': '1' },
      ]);
    }
  });

  it('answers HTTP/2 throttling and lost connections with 503', () => {
    const calm = Object.assign(new Error('Stream closed with error code NGHTTP2_ENHANCE_YOUR_CALM'), {
      code: 'ERR_HTTP2_STREAM_ERROR',
    });
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' }),
    });
    const inMessage = new Error('request to https://apiserver failed, reason: NGHTTP2_ENHANCE_YOUR_CALM');
    for (const err of [calm, refused, inMessage]) {
      const mapped = kubeHttpError(err);
      expect([mapped?.status, mapped?.headers]).toEqual([503, { 'retry-after': '1' }]);
    }
    expect(kubeHttpError(inMessage)?.message).toContain('NGHTTP2_ENHANCE_YOUR_CALM');
  });

  it('leaves errors that are not the cluster’s alone (they are bugs: logged, 500)', () => {
    expect(kubeHttpError(new TypeError('x is undefined'))).toBeUndefined();
    const bug = new RangeError('nope');
    expect(fromKube(bug, 'sandbox x')).toBe(bug);
    const known = new HttpError(418, 'teapot', 'short and stout');
    expect(kubeHttpError(known)).toBe(known);
  });
});
