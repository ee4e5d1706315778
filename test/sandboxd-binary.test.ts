// The sandboxd single executable (hack/sea/build.sh), the file the operator's init container
// copies into sandbox images: built once here and run as a real process.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { SandboxdClient } from '../kube/index.ts';
import { waitFor } from './controlplane/index.ts';

const dir = await mkdtemp(join(tmpdir(), 'svc-test-sea-'));
const socket = join(dir, 'sandboxd.sock');
const workspace = join(dir, 'workspace');
const client = new SandboxdClient({ address: `unix:${socket}`, token: 'sea-token' });

beforeAll(async () => {
  await promisify(execFile)('bash', ['hack/sea/build.sh', dir]);
}, 120_000);

afterAll(() => rm(dir, { recursive: true, force: true }));

test('the built binary serves runs with the container environment, and exits on SIGTERM', async () => {
  await promisify(execFile)('mkdir', ['-p', workspace]);
  const child = spawn(join(dir, 'sandboxd'), [], {
    env: {
      PATH: process.env.PATH,
      SANDBOXD_LISTEN: `unix:${socket}`,
      SANDBOXD_TOKEN: 'sea-token',
      SANDBOXD_WORKSPACE: workspace,
      FROM_TEMPLATE: 'yes',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    await waitFor(() => client.health(), { timeoutMs: 20_000, describe: () => 'sandboxd health' });
    const res = await client.run({
      runId: 'r1',
      kind: 'exec',
      argv: ['sh', '-c', 'echo "$FROM_TEMPLATE:${SANDBOXD_TOKEN:-hidden}"'],
      cwd: workspace,
    });
    expect(res.status).toBe(200);
    const events = [];
    for await (const e of res.events) events.push({ event: e.event, data: JSON.parse(e.data) as unknown });
    expect(events.map((e) => e.event)).toEqual(['start', 'log', 'exit']);
    expect(events[1]!.data).toEqual({ stream: 'stdout', data: 'yes:hidden\n' });
    expect(events[2]!.data).toMatchObject({ invokeId: 'r1', exitCode: 0, reason: 'completed' });
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
}, 60_000);
