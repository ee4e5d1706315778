import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PREVIEW_CSP, responseHeaders } from './headers.ts';

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
      const headers = responseHeaders(upstream.headers);
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
    );
    expect(headers.get('content-encoding')).toBe('compress');
    expect(headers.get('content-length')).toBe('12');
    expect(headers.get('set-cookie')).toBeNull();
    expect(headers.get('content-security-policy')).toBe(PREVIEW_CSP);
  });
});
