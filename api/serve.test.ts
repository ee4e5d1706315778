import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, test } from 'vitest';
import type { ApiDeps } from './deps.ts';
import { serveApi } from './serve.ts';

// Upgrades never happen here: the preview and terminal handlers are built (they read the auth
// options and register the terminal's metrics) and never called.
const deps = {
  auth: { devAuth: false },
  logger: pino({ level: 'silent' }),
  metrics: { registry: new Registry() },
} as unknown as ApiDeps;

/** An app whose `/slow` answers after `ms`; `entered` resolves when a request reaches it. */
function slowApp(ms: number): { app: Hono; entered: Promise<void> } {
  const app = new Hono();
  const { promise: entered, resolve } = Promise.withResolvers<void>();
  app.get('/slow', async (c) => {
    resolve();
    await new Promise((r) => setTimeout(r, ms));
    return c.text('done');
  });
  return { app, entered };
}

describe('serveApi close', () => {
  test('with a drain: a request in flight finishes, new connections are refused', async () => {
    const slow = slowApp(500);
    const served = await serveApi(slow.app, deps, { host: '127.0.0.1', port: 0 });
    const inFlight = fetch(`${served.url}/slow`);
    await slow.entered;
    // close() stops listening before it first waits: a connection made after it returns is refused.
    const closing = served.close({ drainMs: 10_000 });
    await expect(fetch(`${served.url}/slow`)).rejects.toThrow();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('done');
    await closing;
  });

  test('the drain has a deadline: a request still running then is cut', async () => {
    const slow = slowApp(5_000);
    const served = await serveApi(slow.app, deps, { host: '127.0.0.1', port: 0 });
    const inFlight = fetch(`${served.url}/slow`).then(
      (r) => r.text(),
      (err: unknown) => err,
    );
    await slow.entered;
    const started = Date.now();
    await served.close({ drainMs: 300 });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await inFlight).toBeInstanceOf(Error);
  });
});

describe('serveApi timeouts', () => {
  const timeouts = { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 };

  /** Opens a raw connection, writes `text`, and resolves with all it receives until closed. */
  function raw(url: string, text: string): Promise<{ received: string; ms: number }> {
    const { port } = new URL(url);
    const started = Date.now();
    return new Promise((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
      let received = '';
      socket.on('data', (d: Buffer) => (received += d.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve({ received, ms: Date.now() - started }));
    });
  }

  test('headers that never finish: 408 and the connection closed', async () => {
    const served = await serveApi(slowApp(0).app, deps, { host: '127.0.0.1', port: 0 }, timeouts);
    try {
      const { received, ms } = await raw(served.url, 'GET /slow HTTP/1.1\r\nhost: x\r\n');
      expect(received).toMatch(/^HTTP\/1\.1 408/);
      expect(ms).toBeLessThan(10_000);
    } finally {
      await served.close();
    }
  }, 60_000);

  test('a body that never finishes: 408 and the connection closed', async () => {
    const app = new Hono();
    app.post('/upload', async (c) => c.text(String((await c.req.text()).length)));
    const served = await serveApi(app, deps, { host: '127.0.0.1', port: 0 }, timeouts);
    try {
      const { received } = await raw(
        served.url,
        'POST /upload HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\nonly part',
      );
      expect(received).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await served.close();
    }
  }, 60_000);

  test('a response streamed longer than the request timeout is not cut', async () => {
    const app = new Hono();
    app.get('/stream', (c) =>
      streamSSE(c, async (out) => {
        for (let i = 0; i < 5; i++) {
          await out.writeSSE({ data: String(i) });
          // The pause is the subject: five of them outlast the 2 s request timeout.
          await new Promise((r) => setTimeout(r, 1_000));
        }
      }),
    );
    const served = await serveApi(app, deps, { host: '127.0.0.1', port: 0 }, timeouts);
    try {
      const started = Date.now();
      const text = await (await fetch(`${served.url}/stream`)).text();
      expect(Date.now() - started).toBeGreaterThan(timeouts.requestTimeoutMs + 1_000);
      expect(text.match(/^data: \d$/gm)).toEqual(['data: 0', 'data: 1', 'data: 2', 'data: 3', 'data: 4']);
    } finally {
      await served.close();
    }
  }, 60_000);
});

describe('serveApi refusals before any route', () => {
  test('a URL over the header limit is a JSON 431, not a bare status line', async () => {
    const served = await serveApi(slowApp(0).app, deps, { host: '127.0.0.1', port: 0 });
    try {
      const res = await fetch(`${served.url}/slow?path=/workspace/${'a'.repeat(20_000)}`);
      expect(res.status).toBe(431);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.json()).toEqual({
        error: 'header_fields_too_large',
        message: 'the request line and headers exceed 16 KiB',
      });
    } finally {
      await served.close();
    }
  });
});

describe('serveApi responses written past Hono', () => {
  test('a stream written to Node by the handler is whole, even with a header set after it', async () => {
    const app = new Hono();
    // As a middleware that stamps every answer once the handler has returned.
    app.use(async (c, next) => {
      await next();
      c.header('x-after', '1');
    });
    const piece = 'x'.repeat(64 * 1024);
    app.get('/raw', (c) => {
      const res = (c.env as { outgoing: ServerResponse }).outgoing;
      res.writeHead(200, { 'content-type': 'text/plain' });
      void (async () => {
        for (let i = 0; i < 64; i++) {
          if (!res.write(piece)) await once(res, 'drain');
          await new Promise((r) => setImmediate(r));
        }
        res.end();
      })();
      return RESPONSE_ALREADY_SENT;
    });
    const served = await serveApi(app, deps, { host: '127.0.0.1', port: 0 });
    try {
      const res = await fetch(`${served.url}/raw`);
      expect(res.status).toBe(200);
      expect((await res.text()).length).toBe(64 * piece.length);
    } finally {
      await served.close();
    }
  });
});
