import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PREVIEW_CSP, responseHeaders, sameOriginLocation } from './headers.ts';

/** The preview request the app answers: the origin the browser sees is the API's. */
const PAGE = 'https://svc.example.com/api/v1/sandboxes/web/preview/8080/app/page?x=1';

describe('responseHeaders', () => {
  it('drops Content-Encoding and Content-Length of a body fetch has decoded', async () => {
    const page = '<p>hello</p>'.repeat(100);
    const gz = gzipSync(page);
    const server = createServer((_req, res) => {
      res.writeHead(200, {
        'content-type': 'text/html',
        'content-encoding': 'gzip',
        'content-length': gz.length,
      });
      res.end(gz);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const upstream = await fetch(`http://127.0.0.1:${port}/`);
      const headers = responseHeaders(upstream.headers, PAGE);
      // What the preview sends on: the headers must describe these bytes.
      const body = Buffer.from(await new Response(upstream.body, { headers }).arrayBuffer());
      expect(body.toString()).toBe(page);
      expect(headers.get('content-encoding')).toBeNull();
      expect(headers.get('content-length')).toBeNull();
      expect(headers.get('content-type')).toBe('text/html');
    } finally {
      server.close();
    }
  });

  it('keeps a coding fetch passes through untouched, and adds the sandbox policy', () => {
    const headers = responseHeaders(
      new Headers({ 'content-encoding': 'compress', 'content-length': '12', 'set-cookie': 'a=b' }),
      PAGE,
    );
    expect(headers.get('content-encoding')).toBe('compress');
    expect(headers.get('content-length')).toBe('12');
    expect(headers.get('set-cookie')).toBeNull();
    expect(headers.get('content-security-policy')).toBe(PREVIEW_CSP);
  });

  it('drops the headers that act on the API’s origin: Refresh, Clear-Site-Data, Access-Control-*', () => {
    const headers = responseHeaders(
      new Headers({
        'content-type': 'text/html',
        refresh: '0; url=https://evil.example/',
        'clear-site-data': '"storage", "cookies"',
        'access-control-allow-origin': 'https://evil.example',
        'access-control-allow-credentials': 'true',
        'access-control-expose-headers': 'x-secret',
        'access-control-allow-methods': 'PUT',
        'x-app': 'kept',
      }),
      PAGE,
    );
    expect([...headers.keys()].sort()).toEqual(['content-security-policy', 'content-type', 'x-app']);
  });

  it('keeps a Location that stays on the API’s origin: relative, absolute-path, query, or this origin', () => {
    for (const location of [
      'login',
      '../other',
      '/api/v1/sandboxes/web/preview/8080/login',
      '?page=2',
      '#top',
      'https://svc.example.com/api/v1/sandboxes/web/preview/8080/',
    ]) {
      expect(responseHeaders(new Headers({ location }), PAGE).get('location'), location).toBe(location);
    }
  });

  it('drops a Location to another origin, however it is spelled', () => {
    for (const location of [
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example/x',
      '\\\\evil.example',
      'http://svc.example.com/',
      'https://svc.example.com:8443/',
      'https://svc.example.com.evil.example/',
      'http://127.0.0.1:8080/login',
      'javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'https://[::1',
    ]) {
      expect(responseHeaders(new Headers({ location }), PAGE).get('location'), location).toBeNull();
    }
  });
});

describe('sameOriginLocation', () => {
  it('resolves as a browser does', () => {
    expect(sameOriginLocation('next', PAGE)).toBe(true);
    expect(sameOriginLocation(' //evil.example', PAGE)).toBe(false);
    expect(sameOriginLocation('/\\evil.example', PAGE)).toBe(false);
  });
});
