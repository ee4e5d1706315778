// The README as a newcomer reads it: nothing it links lies outside the repository, its
// examples wait for Running before they configure or invoke and read streams with
// `curl -sN`, and it says where kubectl comes from. (test/dev.test.ts runs the examples
// against a real `make dev`.) Also: `npm ci` under an older system Node prints one line
// about engines, not five per package.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { readmeShellBlocks } from './support/readme.ts';

const root = resolve(import.meta.dirname, '..');
const exec = promisify(execFile);

test('the README and docs/ link only files inside the repository', async () => {
  for (const doc of ['README.md', 'docs/spec.md', 'docs/design.md', 'docs/install.md']) {
    const text = await readFile(join(root, doc), 'utf8');
    expect(text, doc).not.toMatch(/\.\.\/shared|\/work\//);
    for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue; // a web address
      const path = resolve(root, dirname(doc), target!);
      expect(path.startsWith(`${root}/`), `${doc} links ${target}`).toBe(true);
      expect(existsSync(path), `${doc} links ${target}`).toBe(true);
    }
  }
  expect(await readFile(join(root, 'README.md'), 'utf8')).toContain('[docs/spec.md](docs/spec.md)');
});

test('the examples wait for Running before configure or invoke, and stream with curl -sN', async () => {
  const blocks = await readmeShellBlocks();
  const calls = blocks.filter((b) => /\/(configure|invoke)"/.test(b));
  expect(calls.length).toBeGreaterThan(0);
  for (const block of calls) {
    const lines = block.split('\n');
    const wait = lines.findIndex((l) =>
      l.startsWith("kubectl wait --for=jsonpath='{.status.phase}'=Running"),
    );
    const first = lines.findIndex((l) => /\/(configure|invoke)"/.test(l));
    expect(wait, block).toBeGreaterThan(-1);
    expect(wait, block).toBeLessThan(first);
    for (const l of lines.filter((x) => /\/(configure|invoke)"/.test(x))) expect(l).toMatch(/curl -sN /);
  }
  const text = await readFile(join(root, 'README.md'), 'utf8');
  expect(text).toContain('make dev PORT=9090');
  expect(text).toMatch(/`source \.dev\/env` sets[^.]*`KUBECONFIG`[^.]*`kubectl` first on `PATH`/);
  expect(text).toContain('~/.cache/svc/kube/<versions>/kubectl');
});

test('npm ci under an older Node: one line about engines instead of five per package', async () => {
  // npm itself is stood in for by a script replaying what npm 11 on Node 20 printed for
  // this lockfile (28 packages, svc among them, want Node >= 22 or 24), then failing or not.
  const dir = await mkdtemp(join(tmpdir(), 'svc-test-npmci-'));
  try {
    const block = (pkg: string) =>
      [
        'npm warn EBADENGINE Unsupported engine {',
        `npm warn EBADENGINE   package: '${pkg}',`,
        "npm warn EBADENGINE   required: { node: '>=22' },",
        "npm warn EBADENGINE   current: { node: 'v20.20.2', npm: '11.19.1' }",
        'npm warn EBADENGINE }',
      ].join('\n');
    const replay = [
      ...Array.from({ length: 28 }, (_, i) => block(`pkg${i}@1.0.0`)),
      '',
      'added 273 packages in 26s',
    ];
    await writeFile(join(dir, 'replay.txt'), `${replay.join('\n')}\n`);
    await writeFile(join(dir, 'npm'), `#!/bin/sh\ncat "${dir}/replay.txt" >&2\nexit "\${NPM_EXIT:-0}"\n`);
    await chmod(join(dir, 'npm'), 0o755);
    const env = { ...process.env, PATH: `${dir}:${process.env.PATH}` };
    const ok = await exec('bash', ['hack/npm-ci.sh'], { cwd: root, env });
    const lines = ok.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.includes('EBADENGINE'))).toEqual([]);
    expect(lines).toEqual([
      '',
      'added 273 packages in 26s',
      expect.stringMatching(
        /^npm ran on this machine's Node v\d+\.\d+\.\d+; 28 packages \(svc among them\) want a newer one, which is fine: svc runs on its own Node v24\.\d+\.\d+ from node_modules\.$/,
      ),
    ]);
    // A failing npm ci still fails.
    await expect(
      exec('bash', ['hack/npm-ci.sh'], { cwd: root, env: { ...env, NPM_EXIT: '1' } }),
    ).rejects.toMatchObject({ code: 1 });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
