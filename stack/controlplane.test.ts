import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubeAssets } from './environment.ts';
import { eventually } from './eventually.ts';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('control-plane harness', () => {
  it('leaves no etcd or kube-apiserver behind when its owner is killed outright', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-test-cp-'));
    const script = `
      import { startControlPlane } from ${JSON.stringify(join(import.meta.dirname, 'index.ts'))};
      const cp = await startControlPlane({ assetsDir: ${JSON.stringify(await kubeAssets())}, dataDir: ${JSON.stringify(dataDir)} });
      process.stdout.write(JSON.stringify({ version: cp.version }) + '\\n');
      setInterval(() => {}, 1000);`;
    const owner = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const [line] = (await once(owner.stdout, 'data')) as [Buffer];
      expect((JSON.parse(line.toString()) as { version: string }).version).toMatch(/^v1\./);
      const children = await childPids(owner.pid!);
      expect(children.length).toBe(2);
      owner.kill('SIGKILL');
      await eventually(() => Promise.resolve(children.every((pid) => !alive(pid))), {
        timeoutMs: 15_000,
        describe: () => `processes still alive: ${children.filter(alive).join(', ')}`,
      });
    } finally {
      owner.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

async function childPids(parent: number): Promise<number[]> {
  const ps = spawn('ps', ['-o', 'pid=', '--ppid', String(parent)]);
  let out = '';
  ps.stdout.on('data', (c: Buffer) => (out += c.toString()));
  await once(ps, 'exit');
  return out
    .split('\n')
    .map((s) => Number(s.trim()))
    .filter((n) => n > 0);
}
