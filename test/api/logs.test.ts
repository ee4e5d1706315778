// Logs end to end: a template whose process writes to stdout and stderr, run by the real
// sandboxd under devnode; the API reads what sandboxd keeps and follows what comes next.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  waitForSandboxPhase,
  type TestApi,
} from '../support/index.ts';
import { eventually } from '../../stack/index.ts';
import { SLOW, createAs, reachable, sse } from './code-mode.ts';

const ns = useNamespace('logs');
const devnode = useDevnode(ns);
// The template's own process: a line on each stream, then a numbered tick on stdout 5 times
// a second, for ever.
const template = useClusterTemplate('logs', ns, {
  command: [
    'sh',
    '-c',
    'echo started; echo "warned ünïcödé" >&2; i=0; while :; do i=$((i+1)); echo "tick $i"; sleep 0.2; done',
  ],
});
useOperator(ns, { identity: 'logs-test', logger: pino({ level: 'silent' }) });
let api: TestApi;
let base: string;

beforeAll(async () => {
  api = await startTestApi(ns, { statusWaitMs: SLOW });
  base = await api.serve();
  await createAs(api, api.keys.alice, { name: 'lg-main', templateRef: { name: template } });
  await waitForSandboxPhase(ns, 'lg-main', 'Running', SLOW);
  await reachable(api, ns, 'lg-main');
}, 300_000);
afterAll(async () => api?.close(), 30_000);

interface Logs {
  entries: { stream: 'stdout' | 'stderr'; data: string }[];
  truncated: boolean;
  droppedBytes: number;
}

async function tail(name = 'lg-main', key = api.keys.alice): Promise<{ status: number; body: Logs }> {
  const res = await api.call('GET', `/sandboxes/${name}/logs`, { key });
  return { status: res.status, body: (await res.json()) as Logs };
}

const ticks = (text: string) => [...text.matchAll(/tick (\d+)\n/g)].map((m) => Number(m[1]));
const text = (logs: Logs, stream: 'stdout' | 'stderr') =>
  logs.entries
    .filter((e) => e.stream === stream)
    .map((e) => e.data)
    .join('');

describe('logs', () => {
  test('the tail: the template process’s recent stdout and stderr, each in order', async () => {
    let last: Logs | undefined;
    await eventually(
      async () => {
        last = (await tail()).body;
        return ticks(text(last, 'stdout')).length >= 3;
      },
      { timeoutMs: 30_000, describe: () => `three ticks in the logs: ${JSON.stringify(last)}` },
    );
    const logs = last!;
    expect(logs.truncated).toBe(false);
    expect(logs.droppedBytes).toBe(0);
    // Each stream's order is exact; between the two pipes it is the order sandboxd read them.
    expect(text(logs, 'stderr')).toBe('warned ünïcödé\n');
    expect(text(logs, 'stdout')).toMatch(/^started\ntick 1\ntick 2\ntick 3\n/);
    // Entries alternate streams: adjacent output of one stream is one entry.
    for (let i = 1; i < logs.entries.length; i++)
      expect(logs.entries[i]!.stream).not.toBe(logs.entries[i - 1]!.stream);
  }, 60_000);

  test('the container log still gets the template process’s output (sandboxd tees it)', async () => {
    // devnode keeps each container's log at <dataDir>/pods/<uid prefix>/logs/<container>.log.
    const pods = join(devnode.dataDir, 'pods');
    const files: string[] = [];
    for (const pod of await readdir(pods)) {
      const logs = await readdir(join(pods, pod, 'logs')).catch(() => []);
      files.push(...logs.filter((f) => f.endsWith('.log')).map((f) => join('pods', pod, 'logs', f)));
    }
    const texts = await Promise.all(files.map((f) => readFile(join(devnode.dataDir, f), 'utf8')));
    const container = texts.find((t) => t.includes('warned ünïcödé\n'));
    expect(container, `container logs: ${files.join(', ')}`).toBeDefined();
    expect(container).toMatch(/started\n[^]*tick 1\n/);
  }, 30_000);

  test('follow: the kept output as log events, then new output as it is written', async () => {
    const before = ticks(text((await tail()).body, 'stdout')).at(-1) ?? 0;
    const abort = new AbortController();
    let seen = '';
    const followed = sse(base, ns, 'GET', '/sandboxes/lg-main/logs?follow=true', {
      key: api.keys.alice,
      signal: abort.signal,
      onEvent: (m) => {
        seen += (JSON.parse(m.data) as { data: string }).data;
        // Three ticks newer than any the tail had: output written after the call began.
        if ((ticks(seen).at(-1) ?? 0) >= before + 3) abort.abort();
      },
    });
    const res = await followed;
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.events.every((e) => e.event === 'log')).toBe(true);
    const stdoutEvents = res.events.filter((e) => e.data.stream === 'stdout');
    expect(stdoutEvents[0]?.data.data).toMatch(/^started\n/);
    const numbers = ticks(stdoutEvents.map((e) => e.data.data).join(''));
    // Every tick once, in order, with no gap between the replay and the live part.
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
    expect(numbers.at(-1)).toBeGreaterThanOrEqual(before + 3);
  }, 60_000);

  test('follow=true without Accept: text/event-stream answers the tail; bad query parameters are 400', async () => {
    const plain = await api.call('GET', '/sandboxes/lg-main/logs?follow=true', { key: api.keys.alice });
    expect(plain.status).toBe(200);
    expect(((await plain.json()) as Logs).entries.length).toBeGreaterThan(0);
    for (const query of ['?follow=yes', '?tail=10']) {
      const res = await api.call('GET', `/sandboxes/lg-main/logs${query}`, { key: api.keys.alice });
      expect(res.status, query).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_request' });
    }
  }, 30_000);

  test('bob gets 403 (tail and follow); 409 while Stopped', async () => {
    expect((await tail('lg-main', api.keys.bob)).status).toBe(403);
    const followed = await sse(base, ns, 'GET', '/sandboxes/lg-main/logs?follow=true', { key: api.keys.bob });
    expect(followed).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    await createAs(api, api.keys.alice, {
      name: 'lg-parked',
      templateRef: { name: template },
      stopped: true,
    });
    await waitForSandboxPhase(ns, 'lg-parked', 'Stopped', SLOW);
    const parked = await tail('lg-parked');
    expect(parked.status).toBe(409);
    expect(parked.body).toMatchObject({ error: 'not_running', phase: 'Stopped' });
    const parkedFollow = await sse(base, ns, 'GET', '/sandboxes/lg-parked/logs?follow=true', {
      key: api.keys.alice,
    });
    expect(parkedFollow).toMatchObject({ status: 409, body: { error: 'not_running' } });
  }, 300_000);
});
