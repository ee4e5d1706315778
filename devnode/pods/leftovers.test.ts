import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { killLeftovers } from './leftovers.ts';

const dir = await mkdtemp(join(tmpdir(), 'svc-leftovers-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A `sleep` whose command line also carries `args` (as `$0`, `$1`… of `sh -c`). */
function sleeper(...args: string[]) {
  const child = spawn('sh', ['-c', 'sleep 300', ...args], { stdio: 'ignore' });
  return { child, exited: once(child, 'exit') };
}

test('kills a left bubblewrap container of the folder, and nothing else', async () => {
  const container = sleeper('bwrap', '--bind', join(dir, 'pods', 'abc', 'root', 'merged'), '/');
  const reader = sleeper('tail', join(dir, 'pods', 'abc', 'logs', 'sandbox.log'));
  const elsewhere = sleeper('bwrap', '--bind', join(`${dir}-other`, 'pods', 'abc', 'root', 'merged'), '/');
  try {
    const killed = await killLeftovers(dir);
    expect(killed).toEqual([container.child.pid]);
    expect((await container.exited)[1]).toBe('SIGKILL');
    expect(reader.child.exitCode ?? reader.child.signalCode).toBeNull();
    expect(elsewhere.child.exitCode ?? elsewhere.child.signalCode).toBeNull();
    expect(await killLeftovers(dir)).toEqual([]);
  } finally {
    for (const s of [container, reader, elsewhere]) s.child.kill('SIGKILL');
  }
});
