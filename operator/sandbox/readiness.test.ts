import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { V1Pod } from '@kubernetes/client-node';
import pino from 'pino';
import { afterEach, describe, expect, test } from 'vitest';
import { SandboxPod } from '../../core/index.ts';
import { SandboxdClient, type SandboxdLocator } from '../../kube/index.ts';
import { SandboxdReadiness, probeStart, probeWait } from './readiness.ts';

const ADDRESS = '10.0.0.7:9000';

/** A sandbox Pod as the kubelet reports it: `main` is the sandbox container's status. */
function pod(o: { phase?: string; ip?: boolean; main?: object; deleting?: boolean } = {}): V1Pod {
  return {
    metadata: {
      name: 's',
      namespace: 'default',
      uid: 'u1',
      ...(o.deleting ? { deletionTimestamp: new Date() } : {}),
    },
    status: {
      phase: o.phase ?? 'Pending',
      ...(o.ip === false ? {} : { podIP: '10.0.0.7' }),
      ...(o.main ? { containerStatuses: [{ name: SandboxPod.container, ...o.main }] as never } : {}),
    },
  };
}
const waiting = { restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } };
const running = { restartCount: 0, state: { running: {} } };

describe('probeStart', () => {
  test('a first start is probed from when the Pod has an address: init containers running, phase Pending', () => {
    expect(probeStart(pod({ main: waiting }), ADDRESS)).toEqual({ id: `u1/0/${ADDRESS}`, running: false });
    // No container status written yet (the kubelet's first status carries the IP alone).
    expect(probeStart(pod(), ADDRESS)).toEqual({ id: `u1/0/${ADDRESS}`, running: false });
    expect(probeStart(pod({ phase: 'Running', main: running }), ADDRESS)).toEqual({
      id: `u1/0/${ADDRESS}`,
      running: true,
    });
  });

  test('no address, a Pod going or ended: nothing to probe', () => {
    expect(probeStart(pod({ ip: false, main: waiting }), undefined)).toBeUndefined();
    expect(probeStart(pod({ main: waiting, deleting: true }), ADDRESS)).toBeUndefined();
    expect(probeStart(pod({ phase: 'Failed', main: waiting }), ADDRESS)).toBeUndefined();
    expect(probeStart(pod({ phase: 'Succeeded', main: waiting }), ADDRESS)).toBeUndefined();
  });

  test('a container that ran and is down is not probed until it runs again, as another start', () => {
    const crashed = { restartCount: 0, state: { terminated: { exitCode: 1 } } };
    expect(probeStart(pod({ phase: 'Running', main: crashed }), ADDRESS)).toBeUndefined();
    const backoff = {
      restartCount: 1,
      state: { waiting: { reason: 'CrashLoopBackOff' } },
      lastState: { terminated: { exitCode: 1 } },
    };
    expect(probeStart(pod({ phase: 'Running', main: backoff }), ADDRESS)).toBeUndefined();
    const again = { restartCount: 1, state: { running: {} }, lastState: { terminated: { exitCode: 1 } } };
    expect(probeStart(pod({ phase: 'Running', main: again }), ADDRESS)).toEqual({
      id: `u1/1/${ADDRESS}`,
      running: true,
    });
  });
});

describe('probeWait', () => {
  test('every 5 ms over the first half second, then a hundredth of the time waited, at most 250 ms', () => {
    expect(probeWait(0, 1)).toBe(5);
    expect(probeWait(499, 1)).toBe(5);
    expect(probeWait(1_000, 1)).toBe(10);
    expect(probeWait(1_600, 1)).toBe(16);
    expect(probeWait(10_000, 1)).toBe(100);
    expect(probeWait(30_000, 1)).toBe(250);
    expect(probeWait(59_999, 1)).toBe(250);
  });

  test('gives up after a minute', () => {
    expect(probeWait(60_000, 1)).toBeUndefined();
  });

  test('a burst shares a budget: a millisecond more per probe running', () => {
    expect(probeWait(0, 100)).toBe(100);
    expect(probeWait(1_000, 3)).toBe(10);
    expect(probeWait(10_000, 400)).toBe(400);
  });

  test('a probe of a minute makes a few hundred tries, not thousands', () => {
    let tries = 0;
    for (let t = 0, w = probeWait(0, 1); w !== undefined; t += w, w = probeWait(t, 1)) tries++;
    expect(tries).toBeGreaterThan(100);
    expect(tries).toBeLessThan(700);
  });
});

describe('SandboxdReadiness', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  /** A locator for sandboxd at 127.0.0.1:`port`, as the operator's finds a Pod's. */
  function locator(port: number): SandboxdLocator {
    const address = `127.0.0.1:${port}`;
    return {
      addressOf: (p: V1Pod) => (p.status?.podIP ? address : undefined),
      forPod: () => Promise.resolve(new SandboxdClient({ address, token: 't' })),
    } as unknown as SandboxdLocator;
  }

  test('a sandboxd that starts listening while the init container runs is seen within tens of ms', async () => {
    // A port nothing listens on yet: each try is refused at once, as on a node before sandboxd runs.
    const free = createServer();
    await new Promise<void>((r) => free.listen(0, '127.0.0.1', r));
    const port = (free.address() as AddressInfo).port;
    await new Promise<void>((r) => free.close(() => r()));

    let woke = 0;
    const readiness = new SandboxdReadiness({
      locator: locator(port),
      wake: () => (woke = performance.now()),
      logger: pino({ level: 'silent' }),
    });
    expect(readiness.answered('default/s', pod({ main: waiting }))).toBe(false);

    await new Promise((r) => setTimeout(r, 700)); // past the first half second's 5 ms tries
    server = createServer((req, res) =>
      res.writeHead(req.url === '/healthz' ? 200 : 404).end('{"status":"ok"}'),
    );
    await new Promise<void>((r) => server!.listen(port, '127.0.0.1', r));
    const listening = performance.now();
    await expect.poll(() => woke, { timeout: 5_000, interval: 5 }).toBeGreaterThan(0);
    expect(woke - listening).toBeLessThan(200);
    // The same start is up from now on, however the kubelet reports it meanwhile.
    expect(readiness.answered('default/s', pod({ main: waiting }))).toBe(true);
    expect(readiness.answered('default/s', pod({ phase: 'Running', main: running }))).toBe(true);
  });

  test('a Pod with no address yet starts no probe; a forgotten sandbox stops its probe', async () => {
    let woke = false;
    const readiness = new SandboxdReadiness({
      locator: locator(1),
      wake: () => (woke = true),
      logger: pino({ level: 'silent' }),
    });
    expect(readiness.answered('default/s', pod({ ip: false }))).toBe(false);
    readiness.answered('default/t', pod({ main: waiting }));
    readiness.forget('default/t');
    // Nothing may happen, so there is no event to wait on: 50 ms is ten of the 5 ms tries.
    await new Promise((r) => setTimeout(r, 50));
    expect(woke).toBe(false);
  });
});
