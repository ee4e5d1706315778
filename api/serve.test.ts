import { Hono } from 'hono';
import { pino } from 'pino';
import { describe, expect, test } from 'vitest';
import type { ApiDeps } from './deps.ts';
import { serveApi } from './serve.ts';

// Upgrades never happen here: the preview handler is built (it reads the auth options) and
// never called.
const deps = { auth: { devAuth: false }, logger: pino({ level: 'silent' }) } as unknown as ApiDeps;

function slowApp(ms: number): Hono {
  const app = new Hono();
  app.get('/slow', async (c) => {
    await new Promise((r) => setTimeout(r, ms));
    return c.text('done');
  });
  return app;
}

describe('serveApi close', () => {
  test('with a drain: a request in flight finishes, new connections are refused', async () => {
    const served = await serveApi(slowApp(500), deps, { host: '127.0.0.1', port: 0 });
    const inFlight = fetch(`${served.url}/slow`);
    await new Promise((r) => setTimeout(r, 100));
    const closing = served.close({ drainMs: 10_000 });
    await new Promise((r) => setTimeout(r, 50));
    await expect(fetch(`${served.url}/slow`)).rejects.toThrow();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('done');
    await closing;
  });

  test('the drain has a deadline: a request still running then is cut', async () => {
    const served = await serveApi(slowApp(5_000), deps, { host: '127.0.0.1', port: 0 });
    const inFlight = fetch(`${served.url}/slow`).then(
      (r) => r.text(),
      (err: unknown) => err,
    );
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await served.close({ drainMs: 300 });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await inFlight).toBeInstanceOf(Error);
  });
});
