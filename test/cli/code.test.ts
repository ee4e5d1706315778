// The built sbx in a code sandbox: exec, cp, shell (through a real pseudo-terminal made by
// util-linux's `script`), logs, templates and whoami, against the whole stack.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eventually } from '../../stack/index.ts';
import {
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  type TestApi,
} from '../support/index.ts';
import { assertBuilt, Running, SBX, sbx, sbxEnv, startSbx } from './support.ts';

const ns = useNamespace('cli-code');
useDevnode(ns);
// The template process writes to both streams at start, then a numbered line every 200 ms.
const template = useClusterTemplate('cli-code', ns, {
  command: [
    'sh',
    '-c',
    'echo started; echo oops >&2; i=0; while :; do i=$((i+1)); echo "tick $i"; sleep 0.2; done',
  ],
});
useOperator(ns, { identity: 'cli-code-test', logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }) });

let api: TestApi;
let home: string;
let env: NodeJS.ProcessEnv;
const box = `code-${randomBytes(3).toString('hex')}`;

beforeAll(async () => {
  assertBuilt();
  api = await startTestApi(ns, { statusWaitMs: 60_000 });
  const base = await api.serve();
  home = await mkdtemp(join(tmpdir(), 'svc-test-sbx-code-'));
  env = sbxEnv(home, { SVC_BASE_URL: base, SVC_API_KEY: api.keys.alice, SVC_NAMESPACE: ns.name });
  const made = await sbx(['create', box, '--template', template, '--wait'], env);
  expect(made.code, made.stderr).toBe(0);
}, 120_000);
afterAll(async () => {
  await api?.close();
  if (home) await rm(home, { recursive: true, force: true });
}, 30_000);

async function sha256Tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const full = join(e.parentPath, e.name);
    out[relative(dir, full)] = createHash('sha256')
      .update(await readFile(full))
      .digest('hex');
  }
  return out;
}

describe('sbx in a code sandbox', () => {
  test('exec: the exit code is sbx’s, stdin is piped, each stream goes to its own', async () => {
    expect(await sbx(['exec', box, '--', 'sh', '-c', 'exit 3'], env)).toMatchObject({
      code: 3,
      stdout: '',
      stderr: '',
    });
    expect(await sbx(['exec', box, '--', 'tr', 'a-z', 'A-Z'], env, 'hello sbx\n')).toMatchObject({
      code: 0,
      stdout: 'HELLO SBX\n',
    });
    expect((await sbx(['exec', box, '--', 'mkdir', '-p', '/workspace/w'], env)).code).toBe(0);
    const split = await sbx(
      [
        'exec',
        box,
        '-e',
        'WHO=sbx',
        '-w',
        '/workspace/w',
        '--',
        'sh',
        '-c',
        'echo "out $WHO $(pwd)"; echo err >&2',
      ],
      env,
    );
    expect(split).toMatchObject({ code: 0, stdout: 'out sbx /workspace/w\n', stderr: 'err\n' });
  });

  test('cp: a folder of 100 files there and back, sha256 equal; a single file too', async () => {
    const src = join(home, 'tree');
    for (let i = 0; i < 100; i++) {
      const dir = join(src, `d${i % 7}`, i % 2 ? 'sub' : '');
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, `f${i}.bin`), randomBytes(1 + ((i * 7919) % 65_536)));
    }
    const want = await sha256Tree(src);
    expect(Object.keys(want)).toHaveLength(100);
    const up = await sbx(['cp', src, `${box}:/workspace/tree`], env);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stderr).toMatch(/\(100 files, \d+ bytes\)\n$/);
    const listed = await sbx(['exec', box, '--', 'sh', '-c', 'find /workspace/tree -type f | wc -l'], env);
    expect(listed.stdout.trim()).toBe('100');
    const back = join(home, 'back');
    const down = await sbx(['cp', `${box}:/workspace/tree`, back], env);
    expect(down.code, down.stderr).toBe(0);
    expect(await sha256Tree(back)).toEqual(want);

    // One file, into an existing local folder (cp -r's rule) and back under a new name.
    const big = randomBytes(3 * 1024 * 1024 + 17);
    await writeFile(join(home, 'big.bin'), big);
    expect((await sbx(['cp', join(home, 'big.bin'), `${box}:/workspace/`], env)).code).toBe(0);
    const sum = await sbx(['exec', box, '--', 'sha256sum', '/workspace/big.bin'], env);
    expect(sum.stdout.split(' ')[0]).toBe(createHash('sha256').update(big).digest('hex'));
    await mkdir(join(home, 'into'));
    expect((await sbx(['cp', `${box}:/workspace/big.bin`, join(home, 'into')], env)).code).toBe(0);
    expect((await readFile(join(home, 'into/big.bin'))).equals(big)).toBe(true);

    const missing = await sbx(['cp', `${box}:/workspace/nope`, join(home, 'nope')], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: .*\(\w+, HTTP 404\)\n$/);
  });

  test('shell through a pseudo-terminal: echo hi, a resize shows in stty size, the exit code is kept', async () => {
    // `script` gives sbx a real terminal; its stdin (a pipe) is what we type.
    const child = spawn('script', ['-qfec', `${SBX} shell ${box}`, '/dev/null'], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const term = new Running(child);
    try {
      const type = (s: string) => child.stdin.write(s);
      type('echo h""i\r');
      await term.until(/\nhi\n/, 'plain');
      // The terminal sbx runs on is resized from outside, as a window manager would: the
      // kernel sends sbx SIGWINCH, sbx sends a resize frame, and the remote side sees it.
      const tty = await ttyOf(child.pid!);
      await new Promise<void>((resolve, reject) =>
        spawn('stty', ['-F', tty, 'rows', '40', 'cols', '120'], { stdio: 'ignore' }).on('exit', (code) =>
          code === 0 ? resolve() : reject(new Error(`stty -F ${tty} exited ${code}`)),
        ),
      );
      // Typed until the new size shows: the resize frame and SIGWINCH race our keystrokes.
      // Each try types `stty size` and looks at what has come back; 300 ms apart, so the
      // screen is not flooded while the answer is on its way.
      await eventually(
        () => {
          if (/\n40 120\n/.test(term.plain)) return true;
          type('stty size\r');
          return false;
        },
        { timeoutMs: 20_000, intervalMs: 300, describe: () => `40 120 in ${term.plain}` },
      );
      type('exit 3\r');
      const result = await term.done;
      expect(result.code).toBe(3);
    } finally {
      child.kill('SIGKILL');
    }
  });

  test('logs: the template process’s output, each stream to its own; -f follows', async () => {
    const tail = await sbx(['logs', box], env);
    expect(tail.code).toBe(0);
    expect(tail.stdout).toMatch(/^started\ntick 1\n/);
    expect(tail.stderr).toBe('oops\n');
    const last = Math.max(...[...tail.stdout.matchAll(/tick (\d+)/g)].map((m) => Number(m[1])));
    const follow = startSbx(['logs', box, '-f'], env);
    await follow.until(new RegExp(`tick ${last + 3}\\n`));
    follow.child.kill('SIGINT');
    expect((await follow.done).code).toBe(0);
  });

  test('top: piped, one plain table and exit 0; on a terminal it refreshes until Ctrl-C', async () => {
    const header = /^NAME +CPU\(CORES\) +MEMORY +DISK USED +DISK FREE +PROCESSES +RUNS +TERMINALS\n/;
    const one = await sbx(['top', box], env);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(header);
    expect(one.stdout).not.toContain('\x1b');
    const row = one.stdout.split('\n')[1]!.split(/ +/);
    expect(row[0]).toBe(box);
    expect(Number(row[1])).toBeGreaterThanOrEqual(0);
    expect(row[2]).toMatch(/^[\d.]+(Ki|Mi|Gi)$/);
    expect(Number(row[5])).toBeGreaterThanOrEqual(2); // sandboxd and the template's process
    const all = await sbx(['top'], env);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(header);
    expect(all.stdout).toMatch(new RegExp(`\n${box} `));
    const missing = await sbx(['top', 'no-such-box'], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/not found/);

    const child = spawn('script', ['-qfec', `${SBX} top ${box} --interval 1`, '/dev/null'], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const live = new Running(child);
    try {
      // Two screens: each clears and redraws the table.
      // eslint-disable-next-line no-control-regex
      await live.until(/\x1b\[H\x1b\[2J[^]*\x1b\[H\x1b\[2J[^]*TERMINALS/);
      child.stdin.write('\x03');
      expect((await live.done).code).toBe(130);
    } finally {
      child.kill('SIGKILL');
    }
  });

  test('templates and whoami', async () => {
    const list = await sbx(['templates'], env);
    expect(list.stdout).toMatch(/^NAME +KIND +DESCRIPTION\n/);
    expect(list.stdout).toMatch(new RegExp(`\\n${template} +ClusterSandboxTemplate`));
    const json = JSON.parse((await sbx(['templates', '-o', 'json'], env)).stdout) as {
      templates: { name: string }[];
    };
    expect(json.templates.map((t) => t.name)).toContain(template);
    const me = await sbx(['whoami'], env);
    expect(me.stdout).toMatch(/^NAME +ADMIN +GROUPS +CONTEXT +SERVER\nalice +no +/);
    expect(JSON.parse((await sbx(['whoami', '-o', 'json'], env)).stdout)).toMatchObject({
      name: 'alice',
      isAdmin: false,
    });
  });
});

/** The terminal of the sbx under `script` (pid): its stdin's /dev/pts/N. */
async function ttyOf(scriptPid: number): Promise<string> {
  const tty = await eventually(
    async () => {
      for (const pid of await readdir('/proc').catch(() => [])) {
        if (!/^\d+$/.test(pid)) continue;
        const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        const exe = await readlink(`/proc/${pid}/exe`).catch(() => '');
        if (exe === SBX && (ppid === scriptPid || (await parentOf(ppid)) === scriptPid)) {
          return readlink(`/proc/${pid}/fd/0`);
        }
      }
      return undefined;
    },
    { timeoutMs: 10_000, describe: `the sbx under script ${scriptPid}` },
  );
  return tty!;
}

async function parentOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}
