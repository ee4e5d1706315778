// The sandboxd binary (dist/sandboxd, `make sandboxd-binary`), the file the operator's init
// container copies into sandbox Pods, run as a real process: its environment, its supervision
// of the template's process, and its exit on SIGTERM.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, test } from 'vitest';
import { eventually } from '../../stack/index.ts';
import { SANDBOXD_BINARY, startSandboxd } from './daemon.ts';

const dir = await mkdtemp(join(tmpdir(), 'svc-test-sandboxd-bin-'));
const workspace = join(dir, 'workspace');
await mkdir(workspace);

afterAll(() => rm(dir, { recursive: true, force: true }));

test('the binary is static: no interpreter, nothing to load', async () => {
  const { stdout } = await promisify(execFile)('file', ['-L', SANDBOXD_BINARY]).catch(() => ({
    stdout: '',
  }));
  // `file` may be absent; the ELF header says the same: no PT_INTERP segment.
  const elf = await readFile(SANDBOXD_BINARY);
  expect(elf.subarray(0, 4).toString('latin1')).toBe('\x7fELF');
  expect(elf.includes(Buffer.from('/lib64/ld-linux'))).toBe(false);
  expect(elf.includes(Buffer.from('ld-musl'))).toBe(false);
  if (stdout) expect(stdout).toMatch(/statically linked/);
  expect((await stat(SANDBOXD_BINARY)).size).toBeLessThan(16 * 1024 * 1024);
});

test('the built binary serves runs with the container environment, and exits on SIGTERM', async () => {
  const d = await startSandboxd({
    dir,
    name: 'env',
    token: 'bin-token',
    workspace,
    env: { FROM_TEMPLATE: 'yes' },
  });
  try {
    expect(await d.client.health()).toBe(true);
    const res = await d.client.run({
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
    expect(await d.stop()).toBe(0);
  }
}, 60_000);

test('refuses to start without a token: exit 2 and one line saying so', async () => {
  const out = await promisify(execFile)(SANDBOXD_BINARY, [], { env: { PATH: '/usr/bin:/bin' } }).then(
    () => ({ code: 0, stderr: '' }),
    (err: { code: number; stderr: string }) => err,
  );
  expect(out.code).toBe(2);
  expect(out.stderr).toBe(
    'sandboxd: --token-file: a token is required: --token-file or SANDBOXD_TOKEN_FILE\n',
  );
});

/** The /healthz body, parsed. */
async function health(
  socket: string,
): Promise<{ status: string; template?: { running: boolean; restarts: number } }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    request({ socketPath: socket, path: '/healthz' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(JSON.parse(body) as never));
    })
      .on('error', reject)
      .end();
  });
}

test('the template process gets the environment without SANDBOXD_*, is restarted after kill -9 and counted', async () => {
  const pidFile = join(dir, 'template.pid');
  const envFile = join(dir, 'template.env');
  const d = await startSandboxd({
    dir,
    name: 'template',
    token: 'tpl-token',
    workspace,
    env: { FROM_TEMPLATE: 'yes' },
    args: ['--grace-seconds', '1'],
    command: [
      'sh',
      '-c',
      `env > ${envFile}; echo $$ > ${pidFile}.tmp; mv ${pidFile}.tmp ${pidFile}; exec sleep 600`,
    ],
  });
  try {
    const pidOf = async () => Number((await readFile(pidFile, 'utf8')).trim());
    await eventually(async () => (await pidOf()) > 0, {
      timeoutMs: 20_000,
      describe: () => 'the template started',
    });
    const env = await readFile(envFile, 'utf8');
    expect(env).toMatch(/^FROM_TEMPLATE=yes$/m);
    expect(env).not.toMatch(/^SANDBOXD_/m);
    expect(await health(d.socket)).toEqual({ status: 'ok', template: { running: true, restarts: 0 } });

    const first = await pidOf();
    process.kill(first, 'SIGKILL');
    await eventually(async () => (await pidOf()) !== first, {
      timeoutMs: 20_000,
      describe: () => `the template restarted after kill -9 of ${first}; sandboxd said: ${d.stderr()}`,
    });
    expect(await health(d.socket)).toEqual({ status: 'ok', template: { running: true, restarts: 1 } });
    expect(d.stderr()).toMatch(/template command sh ended \(killed by signal 9\); restarting in 1s/);
    const second = await pidOf();
    expect(await d.stop()).toBe(0);
    // Stopping sandboxd stopped the template's process too.
    expect(() => process.kill(second, 0)).toThrow();
  } finally {
    await d.stop();
  }
}, 60_000);
