import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import type { Sandbox } from '../../core/index.ts';
import { SandboxdClient } from '../../kube/index.ts';
import type { ApiDeps } from '../deps.ts';
import { sandboxdOf } from './sandboxd.ts';

const sandbox = { metadata: { namespace: 'ns', name: 'sb', uid: 'u1' }, spec: {} } as unknown as Sandbox;

/** A port on 127.0.0.1 that nothing listens on yet. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** deps whose sandbox's sandboxd is at `port`, counting the lookups. */
function depsAt(port: number) {
  const counted = { lookups: 0, forgotten: 0 };
  const deps = {
    sandboxd: {
      client: () => {
        counted.lookups++;
        return Promise.resolve(new SandboxdClient({ address: `127.0.0.1:${port}`, token: 't' }));
      },
      forget: () => void counted.forgotten++,
    },
  } as unknown as ApiDeps;
  return { deps, counted };
}

describe('sandboxdOf', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  test('a sandboxd that refuses connections for a moment (a policy being reprogrammed) is reached', async () => {
    const port = await freePort();
    const { deps, counted } = depsAt(port);
    // It starts listening 300 ms after the first try.
    const listening = new Promise<void>((resolve) =>
      setTimeout(() => {
        server = createServer((_, res) =>
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
        );
        server.listen(port, '127.0.0.1', resolve);
      }, 300),
    );
    const { answer } = await sandboxdOf(deps, sandbox, (client) => client.health());
    await listening;
    expect(answer).toBe(true);
    expect(counted.lookups).toBeGreaterThan(2);
    expect(counted.forgotten).toBe(counted.lookups - 1);
  });

  test('one that never answers is a 503 sandbox_unreachable after about 2.5 s, with Retry-After', async () => {
    const port = await freePort();
    const { deps, counted } = depsAt(port);
    const started = Date.now();
    const err = await sandboxdOf(deps, sandbox, (client) => client.health()).catch((e: unknown) => e);
    const waited = Date.now() - started;
    expect(err).toMatchObject({ status: 503, code: 'sandbox_unreachable', headers: { 'retry-after': '5' } });
    expect((err as Error).message).toMatch(
      /^the sandbox cannot be reached: connect ECONNREFUSED 127\.0\.0\.1:/,
    );
    expect(counted.lookups).toBe(9);
    expect(waited).toBeGreaterThanOrEqual(2_400);
  });
});
