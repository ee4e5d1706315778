// sandboxd runs in any Linux image: here in a bubblewrap root holding nothing but the binary
// (a "scratch" image), and in a busybox-static root (no glibc, no Node). In each, a run, a
// file write and the port tunnel work.
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SseMessage } from '../../core/index.ts';
import { SANDBOXD_BINARY, startSandboxd } from './daemon.ts';

const dir = await mkdtemp(join(tmpdir(), 'svc-test-anyimage-'));
let echo: Server;
let port = 0;

beforeAll(async () => {
  // A TCP service on the loopback the sandbox shares (no --unshare-net): the tunnel's far end.
  echo = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  port = (echo.address() as AddressInfo).port;
});
afterAll(async () => {
  echo.close();
  await rm(dir, { recursive: true, force: true });
});

/** A root folder with `files` (host path → path in the root), run by bwrap as `/`. */
async function root(name: string, files: Record<string, string>, links: Record<string, string> = {}) {
  const rootDir = join(dir, name, 'root');
  const sock = join(dir, name, 'sock');
  await mkdir(join(rootDir, 'workspace'), { recursive: true });
  await mkdir(sock, { recursive: true });
  for (const [from, to] of Object.entries(files)) {
    await mkdir(join(rootDir, to, '..'), { recursive: true });
    await copyFile(from, join(rootDir, to));
  }
  for (const [link, target] of Object.entries(links)) await symlink(target, join(rootDir, link));
  // bwrap as the launcher: the binary it runs is the root's /sandboxd, not the host's.
  const wrapper = join(dir, name, 'bwrap-sandboxd');
  const { writeFile } = await import('node:fs/promises');
  await writeFile(
    wrapper,
    `#!/bin/sh\nexec bwrap --bind ${rootDir} / --bind ${sock} /sock --dev /dev --proc /proc --die-with-parent /sandboxd "$@"\n`,
    { mode: 0o755 },
  );
  return { rootDir, sock, wrapper };
}

async function events(all: AsyncIterable<SseMessage>) {
  const out: { event: string; data: Record<string, unknown> }[] = [];
  for await (const e of all)
    out.push({ event: e.event, data: JSON.parse(e.data) as Record<string, unknown> });
  return out;
}

describe.each([
  ['scratch (nothing but the binary)', 'scratch'],
  ['busybox-static (no glibc)', 'busybox'],
])('sandboxd in a %s root', (_title, kind) => {
  test('serves a run, a file write and the tunnel', async () => {
    const files: Record<string, string> = { [SANDBOXD_BINARY]: 'sandboxd' };
    if (kind === 'busybox') files['/bin/busybox'] = 'bin/busybox';
    const r = await root(
      kind,
      files,
      kind === 'busybox' ? { 'bin/sh': 'busybox', 'bin/cat': 'busybox' } : {},
    );
    // The daemon's paths are the sandbox's: its socket and ready file under /sock.
    const d = await startSandboxd({
      dir: r.sock,
      token: `${kind}-token`,
      workspace: '/workspace',
      binary: r.wrapper,
      env: {
        PATH: '/bin',
        SANDBOXD_LISTEN: 'unix:/sock/sandboxd.sock',
        SANDBOXD_READY_FILE: '/sock/sandboxd.ready',
      },
    });
    try {
      const written = await d.client.writeFiles([
        { path: '/workspace/hello.txt', content: Buffer.from(`hi from ${kind}\n`) },
      ]);
      expect(written).toEqual({ status: 200, body: { written: 1 } });
      expect(await readFile(join(r.rootDir, 'workspace/hello.txt'), 'utf8')).toBe(`hi from ${kind}\n`);

      // A run: busybox's sh reads the file back; in scratch the only program is sandboxd itself.
      const argv = kind === 'busybox' ? ['sh', '-c', 'cat /workspace/hello.txt; exit 3'] : ['/sandboxd'];
      const res = await d.client.run({ runId: `${kind}-run`, kind: 'exec', argv, cwd: '/workspace' });
      expect(res.status).toBe(200);
      const got = await events(res.events);
      expect(got.map((e) => e.event)).toEqual(['start', 'log', 'exit']);
      if (kind === 'busybox') {
        expect(got[1]!.data).toEqual({ stream: 'stdout', data: 'hi from busybox\n' });
        expect(got[2]!.data).toMatchObject({ exitCode: 3, reason: 'completed' });
      } else {
        expect(got[1]!.data).toEqual({
          stream: 'stderr',
          data: 'sandboxd: --token-file: a token is required: --token-file or SANDBOXD_TOKEN_FILE\n',
        });
        expect(got[2]!.data).toMatchObject({ exitCode: 2, reason: 'completed' });
      }

      const tunnel = await d.client.tunnel(port);
      const answer = new Promise<string>((resolve) => {
        let text = '';
        tunnel.on('data', (c: Buffer) => {
          text += c.toString();
          if (text.length >= 6) resolve(text);
        });
      });
      tunnel.write(`ping-${kind.length}`);
      expect(await answer).toBe(`ping-${kind.length}`);
      tunnel.destroy();
    } finally {
      // bwrap does not pass SIGTERM on; it dies of it and --die-with-parent ends sandboxd.
      await d.stop();
    }
  }, 60_000);
});
