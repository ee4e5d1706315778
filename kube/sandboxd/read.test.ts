import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, test } from 'vitest';
import { readRaw } from './read.ts';

let server: Server | undefined;
afterEach(() => server?.close());

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { host: '127.0.0.1', port: (server.address() as AddressInfo).port };
}

/** `size` bytes that differ from one 64 KiB block to the next, so a reused buffer shows. */
function pattern(size: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i + 4 <= size; i += 4) b.writeUInt32LE((i * 2654435761) >>> 0, i);
  return b;
}

/** A sink that takes each write after `delayMs`, as a slow caller's socket does. */
function slowSink(delayMs: number) {
  const hash = createHash('sha256');
  let size = 0;
  const sink = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _enc, cb) {
      size += chunk.length;
      hash.update(chunk);
      setTimeout(cb, delayMs);
    },
  });
  return { sink, result: () => ({ size, sha256: hash.digest('hex') }) };
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('readRaw', () => {
  test('relays a sized body intact through a slow sink, its head parsed', async () => {
    const body = pattern(8 * 1024 * 1024 + 17);
    const seen: { version?: string; auth?: string } = {};
    const target = await serve((req, res) => {
      seen.version = req.httpVersion;
      seen.auth = req.headers.authorization;
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': String(body.length),
        etag: '"x"',
      });
      res.end(body);
    });
    const answer = await readRaw(target, '/fs?path=%2Fworkspace%2Fa', { authorization: 'Bearer t' });
    expect(answer.status).toBe(200);
    expect(answer.headers).toMatchObject({ 'content-length': String(body.length), etag: '"x"' });
    const { sink, result } = slowSink(1);
    await answer.pipeTo(sink);
    expect(result()).toEqual({ size: body.length, sha256: sha(body) });
    expect(seen).toEqual({ version: '1.0', auth: 'Bearer t' });
  });

  test('an answer without Content-Length ends where the server closes', async () => {
    const body = pattern(3 * 1024 * 1024);
    const target = await serve((_req, res) => {
      res.writeHead(206, { 'content-type': 'multipart/byteranges' });
      for (let at = 0; at < body.length; at += 100_000) res.write(body.subarray(at, at + 100_000));
      res.end();
    });
    const answer = await readRaw(target, '/fs', {});
    expect(answer.status).toBe(206);
    expect(answer.headers['content-length']).toBeUndefined();
    const { sink, result } = slowSink(0);
    await answer.pipeTo(sink);
    expect(result()).toEqual({ size: body.length, sha256: sha(body) });
  });

  test('a body cut short rejects and destroys the sink', async () => {
    const target = await serve((req, res) => {
      res.writeHead(200, { 'content-length': '1000000' });
      res.write(Buffer.alloc(1000));
      setTimeout(() => req.socket.destroy(), 50);
    });
    const answer = await readRaw(target, '/fs', {});
    const { sink } = slowSink(0);
    await expect(answer.pipeTo(sink)).rejects.toThrow('sandboxd sent 1000 of 1000000 bytes');
    expect(sink.destroyed).toBe(true);
  });

  test('an error body is read as text', async () => {
    const target = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not_found"}');
    });
    const answer = await readRaw(target, '/fs', {});
    expect(answer.status).toBe(404);
    expect(await answer.text()).toBe('{"error":"not_found"}');
  });

  test('a header or path that could split the request is refused before anything is sent', async () => {
    let asked = 0;
    const target = await serve((_req, res) => {
      asked++;
      res.end();
    });
    await expect(readRaw(target, '/fs', { range: 'bytes=0-1\r\nx-evil: 1' })).rejects.toThrow(
      'not a header to send',
    );
    await expect(readRaw(target, '/fs x', {})).rejects.toThrow('not a path to send');
    expect(asked).toBe(0);
  });
});
