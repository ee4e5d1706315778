// The built sbx binary (dist/sbx) against the whole stack over real HTTP: the API served on
// 127.0.0.1, the operator, devnode and sandboxd. Each command once, its output and exit code
// checked, and what it did checked through the API.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { eventually } from '../../stack/index.ts';
import {
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  type TestApi,
} from '../support/index.ts';
import { assertBuilt, sbx, sbxEnv, startSbx } from './support.ts';

const ns = useNamespace('cli');
useDevnode(ns);
const plain = useClusterTemplate('cli', ns, {});
/**
 * The template process serves HTTP on 8080: GET / is a page, and a WebSocket upgrade is
 * answered (RFC 6455 handshake) with an echo of each text message, so port-forward's
 * HTTP and WebSocket paths both meet a real server inside the sandbox.
 */
const WEB = String.raw`
import base64, hashlib, http.server, struct
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_GET(self):
        if self.headers.get("Upgrade", "").lower() == "websocket":
            key = self.headers["Sec-WebSocket-Key"]
            accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()).decode()
            self.send_response(101)
            self.send_header("Upgrade", "websocket"); self.send_header("Connection", "Upgrade")
            self.send_header("Sec-WebSocket-Accept", accept); self.end_headers(); self.wfile.flush()
            while True:
                h = self.rfile.read(2)
                if len(h) < 2: return
                op, n = h[0] & 15, h[1] & 127
                if n == 126: n = struct.unpack(">H", self.rfile.read(2))[0]
                elif n == 127: n = struct.unpack(">Q", self.rfile.read(8))[0]
                mask = self.rfile.read(4); data = bytes(b ^ mask[i % 4] for i, b in enumerate(self.rfile.read(n)))
                if op == 8: self.wfile.write(b"\x88\x00"); self.wfile.flush(); return
                out = ("echo:" + data.decode()).encode()
                self.wfile.write(bytes([0x81, len(out)]) + out); self.wfile.flush()
        body = ("<h1>hello from " + self.path + "</h1>").encode()
        self.send_response(200); self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
http.server.ThreadingHTTPServer(("127.0.0.1", 8080), H).serve_forever()
`;
const web = useClusterTemplate('cli-web', ns, { command: ['python3', '-c', WEB] });
useOperator(ns, {
  identity: 'cli-test',
  logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }),
  settings: { snapshotWaitSeconds: 60 },
});

// The agent: its first stdin line picks what it does.
const AGENT = `read -r cmd arg
case "$cmd" in
  upper) tr a-z A-Z ;;
  split) echo to-stdout; echo to-stderr >&2; exit 3 ;;
  wait) echo ready; while :; do sleep 0.05; done ;;
  *) echo "unknown $cmd" >&2; exit 2 ;;
esac
`;

let api: TestApi;
let base: string;
let home: string;
let env: NodeJS.ProcessEnv;
let adminEnv: NodeJS.ProcessEnv;

const unique = (prefix: string) => `${prefix}-${randomBytes(3).toString('hex')}`;

/** The API's own answer for a GET, as alice. */
async function apiGet(path: string, key = api.keys.alice): Promise<unknown> {
  const res = await fetch(`${base}/api/v1${path}${path.includes('?') ? '&' : '?'}namespace=${ns.name}`, {
    headers: { 'x-api-key': key },
  });
  expect(res.status).toBe(200);
  return res.json();
}

beforeAll(async () => {
  assertBuilt();
  api = await startTestApi(ns, { statusWaitMs: 60_000 });
  base = await api.serve();
  home = await mkdtemp(join(tmpdir(), 'svc-test-sbx-'));
  env = sbxEnv(join(home, 'alice'));
  // The admin signs in with the environment only: no config file at all.
  adminEnv = sbxEnv(join(home, 'admin'), {
    SVC_BASE_URL: base,
    SVC_API_KEY: api.keys.admin,
    SVC_NAMESPACE: ns.name,
  });
  const login = await sbx(
    ['login', base, '--api-key', api.keys.alice, '--name', 'test', '--context-namespace', ns.name],
    env,
  );
  expect(login.stderr).toMatch(/signed in to http:\/\/127\.0\.0\.1:\d+ as .*; context "test" saved/);
  expect(login.code).toBe(0);
}, 60_000);
afterAll(async () => {
  await api?.close();
  if (home) await rm(home, { recursive: true, force: true });
}, 30_000);

describe('sbx against the whole stack', () => {
  test('--version, --help with examples on every command, usage errors exit 2', async () => {
    const version = await sbx(['--version'], env);
    expect(version).toMatchObject({ code: 0, stdout: '0.1.0\n' });
    const help = await sbx(['--help'], env);
    expect(help.code).toBe(0);
    const from = help.stdout.indexOf('\nCommands:\n');
    const listed = help.stdout.slice(from, help.stdout.indexOf('\n\n', from + 1));
    const commands = [...listed.matchAll(/^ {2}([a-z-]+)(?:\|[a-z]+)? /gm)]
      .map((m) => m[1]!)
      .filter((c) => c !== 'help');
    expect(commands).toHaveLength(27);
    expect(commands).toEqual(
      expect.arrayContaining([
        'login',
        'exec',
        'shell',
        'cp',
        'port-forward',
        'policy',
        'audit',
        'runs',
        'attach',
        'mcp',
        'top',
      ]),
    );
    const nested: Record<string, string[]> = { context: ['ls', 'use', 'rm'], policy: ['get', 'set'] };
    for (const c of commands) {
      for (const path of nested[c]?.map((s) => [c, s]) ?? [[c]]) {
        const h = await sbx([...path, '--help'], env);
        expect(h.code, path.join(' ')).toBe(0);
        expect(h.stdout.slice(h.stdout.indexOf('\nExamples:\n  ')), path.join(' ')).toMatch(
          new RegExp(`sbx ${path.join(' ')}[ \n]`),
        );
      }
    }
    const bad = await sbx(['create'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("error: missing required argument 'name'");
  });

  test('login refuses a wrong key (exit 4) and saves nothing; contexts list, switch and delete', async () => {
    const other = sbxEnv(join(home, 'other'));
    const refused = await sbx(['login', base, '--api-key', 'svc_wrong'], other);
    expect(refused.code).toBe(4);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/^error: .*\(unauthenticated, HTTP 401\)\n$/);
    await expect(stat(join(home, 'other/sbx/config.yaml'))).rejects.toThrow(/ENOENT/);

    const notSignedIn = await sbx(['ls'], other);
    expect(notSignedIn).toMatchObject({
      code: 4,
      stderr:
        'error: not signed in: run `sbx login URL --api-key KEY` (or set SVC_BASE_URL and SVC_API_KEY)\n',
    });

    // A second context by a key on stdin; then back to the first.
    const second = await sbx(['login', base, '--name', 'bob'], env, `${api.keys.bob}\n`);
    expect(second.code).toBe(0);
    const file = join(home, 'alice/sbx/config.yaml');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const saved = parse(await readFile(file, 'utf8')) as {
      'current-context': string;
      contexts: { name: string; apiKey: string }[];
    };
    expect(saved['current-context']).toBe('bob');
    expect(saved.contexts.map((c) => [c.name, c.apiKey])).toEqual([
      ['test', api.keys.alice],
      ['bob', api.keys.bob],
    ]);
    const list = await sbx(['context', 'ls'], env);
    expect(list.stdout).toMatch(
      /^CURRENT +NAME +SERVER +NAMESPACE\n +test +http:\/\/127\.0\.0\.1:\d+ +cli-\w+\n\* +bob +http/,
    );
    expect(list.stdout).not.toContain(api.keys.alice);
    expect((await sbx(['context', 'use', 'test'], env)).code).toBe(0);
    expect((await sbx(['context', 'rm', 'bob'], env)).code).toBe(0);
    const after = JSON.parse((await sbx(['context', 'ls', '-o', 'json'], env)).stdout) as unknown;
    expect(after).toEqual({
      currentContext: 'test',
      contexts: [{ name: 'test', server: base, namespace: ns.name }],
    });
  });

  test('create --wait shows the phases; ls, get -o json|yaml match the API; stop, resume, rm', async () => {
    const name = unique('dev');
    const made = await sbx(['create', name, '--template', plain, '--wait'], env);
    expect(made.code).toBe(0);
    // Not a terminal: one line per phase seen, then the last.
    expect(made.stderr).toMatch(new RegExp(`^${name}: (Pending|Creating)`, 'm'));
    expect(made.stderr).toMatch(new RegExp(`✓ ${name} is Running\\n$`));

    const ls = await sbx(['ls'], env);
    expect(ls.stdout).toMatch(/^NAME +MODE +PHASE +TEMPLATE +AGE\n/);
    expect(ls.stdout).toMatch(new RegExp(`\\n${name} +code +Running +${plain} +\\d+[smhd]\\n`));
    const wide = await sbx(['ls', '-o', 'wide'], env);
    expect(wide.stdout).toMatch(
      new RegExp(`\\n${name} +code +Running +${plain} +\\d+[smhd] +${ns.name} +alice +<none>`),
    );
    expect((await sbx(['ls', '-o', 'name'], env)).stdout.split('\n')).toContain(name);

    // -o json is the API's document, field for field (read between two API reads, so a
    // status write in between cannot make it differ from both).
    const before = await apiGet(`/sandboxes/${name}`);
    const got = JSON.parse((await sbx(['get', name, '-o', 'json'], env)).stdout) as unknown;
    const after = await apiGet(`/sandboxes/${name}`);
    expect([before, after]).toContainEqual(got);
    const yaml = parse((await sbx(['get', name, '-o', 'yaml'], env)).stdout) as {
      metadata: { name: string };
      status: { phase: string };
    };
    expect(yaml).toMatchObject({ metadata: { name }, status: { phase: 'Running' } });
    const list = JSON.parse((await sbx(['ls', '-o', 'json'], env)).stdout) as {
      items: { metadata: { name: string } }[];
    };
    const apiList = (await apiGet('/sandboxes')) as { items: { metadata: { name: string } }[] };
    expect(list.items.map((s) => s.metadata.name).sort()).toEqual(
      apiList.items.map((s) => s.metadata.name).sort(),
    );

    const stopped = await sbx(['stop', name, '--wait'], env);
    expect(stopped).toMatchObject({ code: 0 });
    expect(stopped.stderr).toContain(`✓ ${name} is Stopped`);
    expect(((await apiGet(`/sandboxes/${name}`)) as { status: { phase: string } }).status.phase).toBe(
      'Stopped',
    );
    const resumed = await sbx(['resume', name, '--wait'], env);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`✓ ${name} is Running`);

    // rm: every name tried; the missing one is one error line and exit 1.
    const other = unique('tmp');
    expect((await sbx(['create', other, '--template', plain], env)).stderr).toBe(
      `sandbox ${other} created (phase Pending)\n`,
    );
    const removed = await sbx(['rm', name, 'no-such-sandbox', other], env);
    expect(removed.code).toBe(1);
    expect(removed.stdout).toBe(`sandbox ${name} deleted\nsandbox ${other} deleted\n`);
    expect(removed.stderr).toMatch(/^error: no-such-sandbox: .*\(not_found, HTTP 404\)\n$/);
  });

  test('bob may not touch alice’s sandbox: one readable line, exit 1', async () => {
    const name = unique('mine');
    expect((await sbx(['create', name, '--template', plain], env)).code).toBe(0);
    const bob = sbxEnv(join(home, 'bob'), {
      SVC_BASE_URL: base,
      SVC_API_KEY: api.keys.bob,
      SVC_NAMESPACE: ns.name,
    });
    const refused = await sbx(['get', name], bob);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: .*\(forbidden, HTTP 403\)\n$/);
    expect((await sbx(['rm', name], env)).code).toBe(0);
  });

  test('clone SRC NAME --wait', async () => {
    const src = unique('src');
    expect((await sbx(['create', src, '--template', plain, '--wait'], env)).code).toBe(0);
    const copy = unique('copy');
    const cloned = await sbx(['clone', src, copy, '--wait', '-o', 'json'], env);
    expect(cloned.stderr).toContain(`✓ ${copy} is Running`);
    expect(cloned.code).toBe(0);
    expect(JSON.parse(cloned.stdout)).toMatchObject({
      metadata: { name: copy },
      status: { phase: 'Running' },
    });
    expect((await sbx(['rm', src, copy], env)).code).toBe(0);
  }, 180_000);

  test('configure streams the install; invoke keeps stdout, stderr and the exit code; cancel', async () => {
    const bot = unique('bot');
    expect((await sbx(['create', bot, '--template', plain, '--mode', 'agent', '--wait'], env)).code).toBe(0);
    const dir = await mkdtemp(join(home, 'agent-'));
    await writeFile(join(dir, 'agent.sh'), AGENT);
    const configured = await sbx(
      [
        'configure',
        bot,
        '-f',
        `${join(dir, 'agent.sh')}:/workspace/agent.sh`,
        '--install',
        'echo installing; echo warn >&2',
        '--',
        'sh',
        '/workspace/agent.sh',
      ],
      env,
    );
    expect(configured.stdout).toBe('installing\n');
    expect(configured.stderr).toBe(
      `warn\n✓ ${bot} configured: 1 file(s), entrypoint ["sh","/workspace/agent.sh"], install exit 0\n`,
    );
    expect(configured.code).toBe(0);

    expect(await sbx(['invoke', bot], env, 'upper\nhello sbx\n')).toMatchObject({
      code: 0,
      stdout: 'HELLO SBX\n',
      stderr: '',
    });
    expect(await sbx(['invoke', bot], env, 'split\n')).toMatchObject({
      code: 3,
      stdout: 'to-stdout\n',
      stderr: 'to-stderr\n',
    });

    // Canceled from another sbx by its id: the invoke reports -1 and canceled.
    const running = startSbx(['invoke', bot, '--show-id'], env, 'wait\n');
    const [, id] = await running.until(/^invoke (\S+)$/m, 'stderr');
    await running.until(/ready\n/);
    const canceled = await sbx(['cancel', bot, id!], env);
    expect(canceled).toMatchObject({ code: 0, stdout: `invoke ${id} canceling\n` });
    const ended = await running.done;
    expect(ended.stderr).toContain(`invoke ${id} canceled: exit -1\n`);
    expect(ended.code).toBe(1);

    // Ctrl-C: sbx cancels the invoke, reports -1 and canceled, and exits 130.
    const interrupted = startSbx(['invoke', bot, '--show-id'], env, 'wait\n');
    const [, id2] = await interrupted.until(/^invoke (\S+)$/m, 'stderr');
    await interrupted.until(/ready\n/);
    interrupted.child.kill('SIGINT');
    const result = await interrupted.done;
    expect(result.stderr).toContain(`canceling invoke ${id2}…\n`);
    expect(result.stderr).toContain(`invoke ${id2} canceled: exit -1\n`);
    expect(result.code).toBe(130);
  }, 180_000);

  test('invoke --detach prints the id; runs lists it; attach replays it; Ctrl-C detaches, --cancel-on-interrupt cancels; exec --detach', async () => {
    const bot = unique('det');
    expect((await sbx(['create', bot, '--template', plain, '--mode', 'agent', '--wait'], env)).code).toBe(0);
    const dir = await mkdtemp(join(home, 'agent-'));
    await writeFile(join(dir, 'agent.sh'), AGENT);
    const configure = ['configure', bot, '-f', `${join(dir, 'agent.sh')}:/workspace/agent.sh`];
    expect((await sbx([...configure, '--', 'sh', '/workspace/agent.sh'], env)).code).toBe(0);

    const started = await sbx(['invoke', bot, '--detach'], env, 'upper\nhello detached\n');
    const id = started.stdout.trim();
    expect(id).toMatch(/^inv-/);
    expect(started).toMatchObject({ code: 0, stderr: `detached; follow it with: sbx attach ${bot} ${id}\n` });
    expect(await sbx(['attach', bot, id], env)).toMatchObject({
      code: 0,
      stdout: 'HELLO DETACHED\n',
      stderr: '',
    });
    const listed = JSON.parse((await sbx(['runs', bot, '-o', 'json'], env)).stdout) as { items: unknown[] };
    expect(listed.items).toContainEqual(
      expect.objectContaining({ invokeId: id, kind: 'invoke', state: 'exited', exitCode: 0, detached: true }),
    );
    expect((await sbx(['runs', bot], env)).stdout).toMatch(
      new RegExp(`^${id}\\s+invoke\\s+exited\\s+0\\s+completed\\s+yes`, 'm'),
    );

    // Ctrl-C detaches: the run goes on, and sbx says where to resume.
    const waiting = (await sbx(['invoke', bot, '--detach'], env, 'wait\n')).stdout.trim();
    const attached = startSbx(['attach', bot, waiting], env);
    await attached.until(/ready\n/);
    attached.child.kill('SIGINT');
    const detached = await attached.done;
    expect(detached.code).toBe(0);
    expect(detached.stderr).toContain(
      `detached; ${waiting} goes on: sbx attach ${bot} ${waiting} --last-event-id 2\n`,
    );
    const runs = (await apiGet(`/sandboxes/${bot}/runs`)) as { items: { invokeId: string; state: string }[] };
    expect(runs.items.find((r) => r.invokeId === waiting)?.state).toBe('running');

    // --cancel-on-interrupt: Ctrl-C cancels it, and attach reads on to its exit.
    const canceling = startSbx(['attach', bot, waiting, '--cancel-on-interrupt'], env);
    await canceling.until(/ready\n/);
    canceling.child.kill('SIGINT');
    const canceled = await canceling.done;
    expect(canceled.stderr).toContain(`canceling ${waiting}…\n`);
    expect(canceled.stderr).toContain(`${waiting} canceled: exit -1\n`);
    expect(canceled.code).toBe(1);

    // exec --detach needs --timeout; with one, its output is there to attach to.
    expect((await sbx(['exec', bot, '--detach', '--', 'echo', 'hi'], env)).code).toBe(2);
    const exec = await sbx(
      ['exec', bot, '--detach', '--timeout', '1m', '--', 'sh', '-c', 'echo hi; exit 4'],
      env,
    );
    const execId = exec.stdout.trim();
    expect(execId).toMatch(/^exec-/);
    expect(await sbx(['attach', bot, execId], env)).toMatchObject({ code: 4, stdout: 'hi\n' });
  }, 180_000);

  test('port-forward serves the sandbox’s page and WebSocket on a local port; ports lists it', async () => {
    const name = unique('web');
    expect((await sbx(['create', name, '--template', web, '--wait'], env)).code).toBe(0);
    const forward = startSbx(['port-forward', name, '8080', '--local', '0'], env);
    try {
      const [, port] = await forward.until(/^Forwarding from http:\/\/127\.0\.0\.1:(\d+) -> /m);
      // The server starts with the sandbox; the first answers may come before it listens.
      const page = await eventually(
        async () => (await fetch(`http://127.0.0.1:${port}/some/page?x=1`)).text(),
        { timeoutMs: 30_000, intervalMs: 200, until: (p) => p.startsWith('<h1>'), describe: 'the page' },
      );
      expect(page).toBe('<h1>hello from /some/page?x=1</h1>');

      const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
      const reply = await new Promise<string>((resolve, reject) => {
        ws.on('open', () => ws.send('ping'));
        ws.on('message', (data: Buffer) => resolve(data.toString()));
        ws.on('error', reject);
      });
      expect(reply).toBe('echo:ping');
      ws.close();

      const ports = await sbx(['ports', name], env);
      expect(ports.stdout).toMatch(
        /^PORT +PROTOCOL +PREVIEW\n8080 +http +http:\/\/127\.0\.0\.1:\d+\/api\/v1\/sandboxes\/.*\/preview\/8080\//,
      );
      const json = JSON.parse((await sbx(['ports', name, '-o', 'json'], env)).stdout) as {
        ports: { port: number }[];
      };
      expect(json.ports.map((p) => p.port)).toEqual([8080]);
    } finally {
      forward.child.kill('SIGINT');
      expect((await forward.done).code).toBe(0);
    }
    expect((await sbx(['rm', name], env)).code).toBe(0);
  }, 180_000);

  test('policy set and get in YAML; a violation is one line listing it; audit', async () => {
    const denied = await sbx(['policy', 'get'], env);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/^error: .*\(forbidden, HTTP 403\)\n$/);

    const set = await sbx(
      ['policy', 'set', '-n', ns.name, '-f', '-'],
      adminEnv,
      'allowedTemplates: [only-this-one]\nmaxSandboxesPerUser: 40\n',
    );
    expect(set.code).toBe(0);
    expect(parse(set.stdout)).toMatchObject({ allowedTemplates: ['only-this-one'], maxSandboxesPerUser: 40 });
    const got = await sbx(['policy', 'get', '-n', ns.name], adminEnv);
    expect(parse(got.stdout)).toEqual({ allowedTemplates: ['only-this-one'], maxSandboxesPerUser: 40 });
    const all = parse((await sbx(['policy', 'get'], adminEnv)).stdout) as {
      namespaces: Record<string, unknown>;
    };
    expect(all.namespaces[ns.name]).toEqual({ allowedTemplates: ['only-this-one'], maxSandboxesPerUser: 40 });
    try {
      const refused = await sbx(['create', unique('nope'), '--template', plain], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr.split('\n')).toHaveLength(2);
      expect(refused.stderr).toMatch(/^error: .*\(policy_violation, HTTP 403\): [a-zA-Z_]+: .*only-this-one/);
    } finally {
      const res = await fetch(`${base}/api/v1/governance/policies/${ns.name}`, {
        method: 'DELETE',
        headers: { 'x-api-key': api.keys.admin },
      });
      expect(res.status).toBe(204);
    }

    const name = unique('audited');
    expect((await sbx(['create', name, '--template', plain], env)).code).toBe(0);
    // The operator's events come as it works: each list read is compared with the one before it.
    // Its first events are written as the operator works: waited for, not assumed.
    const direct = await eventually(
      async () =>
        (await apiGet(`/audit/events?sandbox=${name}`, api.keys.admin)) as {
          items: { id: string; reason: string }[];
        },
      {
        timeoutMs: 30_000,
        intervalMs: 200,
        until: (d) => d.items.length > 0,
        describe: `audit events of ${name}`,
      },
    );
    expect(direct.items.length).toBeGreaterThan(0);
    const json = JSON.parse((await sbx(['audit', '--sandbox', name, '-o', 'json'], adminEnv)).stdout) as {
      items: { id: string; reason: string }[];
    };
    expect(json.items.map((e) => e.id)).toEqual(expect.arrayContaining(direct.items.map((e) => e.id)));
    const trail = await sbx(['audit', '--sandbox', name, '--since', '1h'], adminEnv);
    expect(trail.code).toBe(0);
    expect(trail.stdout).toMatch(/^AGE +SANDBOX +REASON +ACTOR +MESSAGE\n/);
    for (const e of json.items)
      expect(trail.stdout).toMatch(new RegExp(`\\n\\d+[sm] +${name} +${e.reason} `));
    expect(trail.stdout.trim().split('\n').length - 1).toBeGreaterThanOrEqual(json.items.length);
    expect((await sbx(['rm', name], env)).code).toBe(0);
  });

  test('completion scripts for bash and zsh complete commands and flags', async () => {
    const script = (await sbx(['completion', 'bash'], env)).stdout;
    await writeFile(join(home, 'sbx.bash'), script);
    const words = await new Promise<string>((resolve, reject) =>
      execFile(
        'bash',
        [
          '-c',
          `source ${join(home, 'sbx.bash')}; COMP_WORDS=(sbx por); COMP_CWORD=1; _sbx; echo "\${COMPREPLY[*]}"; COMP_WORDS=(sbx create x --wa); COMP_CWORD=3; _sbx; echo "\${COMPREPLY[*]}"`,
        ],
        { env: { ...env, PATH: `/nonexistent:${process.env.PATH ?? ''}` } },
        (err, stdout) => (err ? reject(new Error(err.message)) : resolve(stdout)),
      ),
    );
    expect(words).toBe('port-forward ports\n--wait --wait-timeout\n');
    const zsh = (await sbx(['completion', 'zsh'], env)).stdout;
    expect(zsh.startsWith('#compdef sbx\n')).toBe(true);
    expect(zsh).toContain('bashcompinit');
  });
});
