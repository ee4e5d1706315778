import { Hono } from 'hono';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { errorHandler } from '../errors/index.ts';
import { namespaceQuery, pathParams } from './params.ts';

/** The validators mounted as app.ts mounts them, in front of routes that only echo. */
function app(): Hono {
  const a = new Hono();
  a.onError(errorHandler(pino({ level: 'silent' })));
  a.use('/sandboxes/*', namespaceQuery());
  a.use('/sandboxes/:id/*', pathParams('id'));
  a.use('/sandboxes/:id/ports/:port', pathParams('port'));
  a.use('/policies/:namespace', pathParams('namespace'));
  a.use('/apikeys/:keyId', pathParams('keyId'));
  a.all('*', (c) => c.json({ reached: true }));
  return a;
}

const invalid = (field: string, message: string) => ({
  error: 'invalid_request',
  message: `invalid request: ${field}: ${message}`,
  fields: [{ path: field, message }],
});
const LABEL = 'must be an RFC 1123 label: lower-case letters, digits and -';

describe('path and query validation', () => {
  it.each([
    ['/sandboxes/%25w%26Y[X', invalid('id', LABEL)],
    ['/sandboxes/a%2Fb/stop', invalid('id', LABEL)],
    ['/sandboxes/a%0Ab', invalid('id', LABEL)],
    ['/sandboxes/a=b', invalid('id', LABEL)],
    ['/sandboxes/Upper', invalid('id', LABEL)],
    [`/sandboxes/${'a'.repeat(54)}`, invalid('id', 'must be at most 53 characters')],
    ['/sandboxes/ok/ports/x1', invalid('port', 'must be a port number')],
    ['/sandboxes/ok/ports/0', invalid('port', 'must be a port number from 1 to 65535')],
    ['/sandboxes/ok/ports/65536', invalid('port', 'must be a port number from 1 to 65535')],
    ['/sandboxes/ok/ports/1.5', invalid('port', 'must be a port number')],
    ['/sandboxes?namespace=%7Dq%2F%7B', invalid('namespace', 'must be an RFC 1123 label')],
    ['/sandboxes/ok?namespace=', invalid('namespace', 'must be an RFC 1123 label')],
    ['/sandboxes/ok?namespace=ok&namespace=a%00', invalid('namespace', 'must be an RFC 1123 label')],
    ['/policies/a%2Fb', invalid('namespace', 'must be an RFC 1123 label')],
    ['/apikeys/..%2Fsecret', invalid('keyId', 'is not an API key id (hex digits)')],
  ])('%s → 400 naming the field', async (path, body) => {
    const res = await app().request(path);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(body);
  });

  it.each([
    '/sandboxes',
    '/sandboxes?namespace=team-a',
    '/sandboxes/my-box-1',
    '/sandboxes/a/ports/8080',
    '/policies/team-a',
    '/apikeys/0a1b2c3d4e5f',
  ])('%s passes', async (path) => {
    const res = await app().request(path);
    expect([res.status, await res.json()]).toEqual([200, { reached: true }]);
  });
});
