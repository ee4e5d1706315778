// The MCP server driven by the official SDK's own client, over both of its transports:
// Streamable HTTP at /api/v1/mcp (the API served on 127.0.0.1) and stdio (`dist/sbx mcp`,
// spawned by the SDK, talking to that same API with the user's key). Against the real
// control plane, the operator, devnode and sandboxd. Every test owns its sandboxes.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eventually } from '../../stack/index.ts';
import {
  OidcIssuer,
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  type TestApi,
} from '../support/index.ts';
import { assertBuilt, SBX, sbxEnv } from '../cli/support.ts';
import { SLOW, reachable } from './code-mode.ts';

const ns = useNamespace('mcp');
useDevnode(ns);
const template = useClusterTemplate('mcp', ns, { command: ['sleep', '86400'] });
/** Serves /workspace on 8080: a forwarded port with something behind it. */
const web = useClusterTemplate('mcp-web', ns, {
  command: ['python3', '-m', 'http.server', '8080', '--bind', '127.0.0.1', '--directory', '/workspace'],
});
useOperator(ns, { identity: 'mcp-test', logger: pino({ level: 'silent' }) });
const issuer = new OidcIssuer();
let api: TestApi;
let base: string;
let home: string;

beforeAll(async () => {
  assertBuilt();
  await issuer.start();
  api = await startTestApi(ns, {
    statusWaitMs: SLOW,
    oidc: { issuer: issuer.url, adminGroup: 'svc-admins' },
  });
  base = await api.serve();
  home = await mkdtemp(join(tmpdir(), 'svc-test-mcp-'));
}, SLOW);
afterAll(async () => {
  await api?.close();
  await issuer.stop();
  if (home) await rm(home, { recursive: true, force: true });
}, 30_000);

/** Every tool the server lists, whatever the transport. */
const TOOLS = [
  'list_templates',
  'create_sandbox',
  'list_sandboxes',
  'get_sandbox',
  'exec',
  'read_file',
  'write_file',
  'list_files',
  'forward_port',
  'configure_agent',
  'invoke_agent',
  'start_agent_run',
  'list_runs',
  'run_events',
  'cancel_run',
  'stop_sandbox',
  'resume_sandbox',
  'delete_sandbox',
];

type Connect = (key: string, who: string) => Promise<Client>;

/** The SDK's client over Streamable HTTP, its credential header in every request. */
async function connectHttp(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/api/v1/mcp`), { requestInit: { headers } }),
  );
  return client;
}

/** Over Streamable HTTP with an API key. */
const overHttp: Connect = (key) => connectHttp({ 'x-api-key': key });

/** The SDK's client spawning `dist/sbx mcp`, signed in by the environment as a user would be. */
const overStdio: Connect = async (key, who) => {
  const env = sbxEnv(join(home, who), { SVC_BASE_URL: base, SVC_API_KEY: key, SVC_NAMESPACE: ns.name });
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: SBX,
      args: ['mcp'],
      env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
      stderr: 'pipe',
    }),
  );
  return client;
};

interface ToolAnswer {
  isError: boolean;
  text: string;
  json: Record<string, unknown>;
}

/** Calls a tool; its one text content as text and, when it is JSON, parsed. */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const res = await client.callTool({ name, arguments: args }, undefined, { timeout: SLOW });
  const content = res.content as { type: string; text: string }[];
  expect(content).toHaveLength(1);
  expect(content[0]!.type).toBe('text');
  const text = content[0]!.text;
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // plain text (a file's content)
  }
  return { isError: res.isError === true, text, json };
}

describe.each([
  ['Streamable HTTP at /api/v1/mcp', 'http', overHttp],
  ['stdio (dist/sbx mcp)', 'stdio', overStdio],
] as const)('MCP over %s', (_title, tag, connect) => {
  let alice: Client;
  let bob: Client;
  beforeAll(async () => {
    alice = await connect(api.keys.alice, `alice-${tag}`);
    bob = await connect(api.keys.bob, `bob-${tag}`);
  }, SLOW);
  afterAll(async () => {
    await alice?.close();
    await bob?.close();
  });

  test('tools/list, then create → exec → write and read a file → delete as alice; bob is forbidden', async () => {
    const listed = await alice.listTools();
    expect(listed.tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    for (const tool of listed.tools) {
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.inputSchema.type, tool.name).toBe('object');
    }
    const exec = listed.tools.find((t) => t.name === 'exec')!;
    expect(exec.inputSchema.required).toEqual(expect.arrayContaining(['sandbox', 'command']));

    const name = `mcp-${tag}-${randomBytes(3).toString('hex')}`;
    const created = await call(alice, 'create_sandbox', {
      name,
      namespace: ns.name,
      templateRef: { name: template },
      wait: true,
    });
    expect(created.isError, created.text).toBe(false);
    expect(created.json).toMatchObject({
      sandboxId: name,
      namespace: ns.name,
      spec: { createdBy: 'alice' },
      status: { phase: 'Running' },
    });
    await reachable(api, ns, name);

    const hi = await call(alice, 'exec', { sandbox: name, namespace: ns.name, command: 'echo hi' });
    expect(hi.isError, hi.text).toBe(false);
    expect(hi.json).toMatchObject({ exitCode: 0, stdout: 'hi\n', stderr: '', reason: 'completed' });

    const content = `written over MCP ${randomBytes(4).toString('hex')}\n`;
    const written = await call(alice, 'write_file', {
      sandbox: name,
      namespace: ns.name,
      path: '/workspace/notes/hello.txt',
      content,
    });
    expect(written.isError, written.text).toBe(false);
    expect(written.json).toMatchObject({ path: '/workspace/notes/hello.txt', size: content.length });
    const read = await call(alice, 'read_file', {
      sandbox: name,
      namespace: ns.name,
      path: '/workspace/notes/hello.txt',
    });
    expect(read).toMatchObject({ isError: false, text: content });

    // Bob's calls on alice's sandbox: tool errors with the API's code and message, and the
    // session goes on (his next call is answered too).
    for (const [tool, args] of [
      ['get_sandbox', {}],
      ['exec', { command: 'echo bob' }],
      ['read_file', { path: '/workspace/notes/hello.txt' }],
      ['delete_sandbox', {}],
    ] as const) {
      const refused = await call(bob, tool, { sandbox: name, namespace: ns.name, ...args });
      expect(refused.isError, tool).toBe(true);
      expect(refused.json, tool).toEqual({
        status: 403,
        error: 'forbidden',
        message: `sandbox ${name} belongs to another user`,
      });
    }
    const missing = await call(bob, 'get_sandbox', { sandbox: `${name}-none`, namespace: ns.name });
    expect(missing.isError).toBe(true);
    expect(missing.json).toMatchObject({ status: 404, error: 'not_found' });

    const deleted = await call(alice, 'delete_sandbox', { sandbox: name, namespace: ns.name });
    expect(deleted.isError, deleted.text).toBe(false);
    await eventually(
      async () =>
        (await call(alice, 'get_sandbox', { sandbox: name, namespace: ns.name })).json.error === 'not_found',
      { timeoutMs: SLOW, describe: () => `sandbox ${name} gone` },
    );
  }, 300_000);
});

describe('MCP tools over Streamable HTTP, past the must-show path', () => {
  let alice: Client;
  beforeAll(async () => {
    alice = await overHttp(api.keys.alice, 'alice');
  }, SLOW);
  afterAll(async () => alice?.close());

  test('the endpoint: POST only, the API’s authentication and body bound, a bad tool call is a tool error', async () => {
    const url = `${base}/api/v1/mcp`;
    const get = await fetch(url, { headers: { 'x-api-key': api.keys.alice, accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(await get.json()).toEqual({
      error: 'method_not_allowed',
      message: 'the MCP endpoint takes POST only (stateless Streamable HTTP)',
    });
    const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const anonymous = await fetch(url, { method: 'POST', headers, body: list });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: 'unauthenticated' });
    const big = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'x-api-key': api.keys.alice },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { pad: 'x'.repeat(1024 * 1024) },
      }),
    });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: 'payload_too_large' });

    // Input the tool's schema refuses, and a sandbox that does not exist: tool errors, and
    // the client goes on.
    const bad = await alice.callTool({ name: 'exec', arguments: { sandbox: 'Not A Name', command: 'true' } });
    expect(bad.isError).toBe(true);
    const none = await call(alice, 'exec', { sandbox: 'mcp-none', namespace: ns.name, command: 'true' });
    expect(none).toMatchObject({ isError: true, json: { status: 404, error: 'not_found' } });
    expect((await alice.listTools()).tools.length).toBe(TOOLS.length);
  });

  test('exec output past the bound, a file read in windows, a forwarded port’s preview URL, the audit names alice', async () => {
    const name = `mcp-code-${randomBytes(3).toString('hex')}`;
    const created = await call(alice, 'create_sandbox', {
      name,
      namespace: ns.name,
      templateRef: { name: web },
    });
    expect(created.json, created.text).toMatchObject({ status: { phase: 'Running' } });
    await reachable(api, ns, name);
    const target = { sandbox: name, namespace: ns.name };

    const long = await call(alice, 'exec', { ...target, command: "head -c 100000 /dev/zero | tr '\\0' a" });
    expect(long.isError, long.text).toBe(false);
    const stdout = long.json.stdout as string;
    expect(stdout).toBe(`${'a'.repeat(16384)}\n[… 67232 characters cut …]\n${'a'.repeat(16384)}`);
    expect(long.json.note).toBe(
      'stdout: 67232 of 100000 characters were cut from the middle (at most 32768 are answered)',
    );
    expect(long.json).toMatchObject({ exitCode: 0, truncated: false });

    await call(alice, 'exec', {
      ...target,
      command: 'seq 1 20000 > /workspace/seq.txt; : > /workspace/empty',
    });
    const first = await call(alice, 'read_file', { ...target, path: '/workspace/seq.txt' });
    expect(first.json.content).toBe(
      Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`)
        .join('')
        .slice(0, 32768),
    );
    expect(first.json.note).toBe('bytes 0–32767 of 108894: read on with offset 32768');
    const rest = await call(alice, 'read_file', { ...target, path: '/workspace/seq.txt', offset: 98304 });
    expect(rest.text.endsWith('19999\n20000\n')).toBe(true);
    expect(await call(alice, 'read_file', { ...target, path: '/workspace/empty' })).toMatchObject({
      isError: false,
      text: '',
    });
    const listing = await call(alice, 'list_files', target);
    expect((listing.json.entries as { name: string }[]).map((e) => e.name)).toEqual(
      expect.arrayContaining(['seq.txt', 'empty']),
    );

    const port = await call(alice, 'forward_port', { ...target, port: 8080 });
    expect(port.isError, port.text).toBe(false);
    const previewUrl = `${base}/api/v1/sandboxes/${name}/preview/8080/?namespace=${ns.name}`;
    expect(port.json).toMatchObject({ port: 8080, previewUrl });
    await eventually(
      async () => (await fetch(previewUrl, { headers: { 'x-api-key': api.keys.alice } })).status === 200,
      { timeoutMs: SLOW, describe: () => `${previewUrl} answers 200` },
    );
    expect(await (await fetch(previewUrl, { headers: { 'x-api-key': api.keys.alice } })).text()).toContain(
      'Directory listing',
    );

    const audit = await fetch(`${base}/api/v1/audit/events?namespace=${ns.name}&sandbox=${name}`, {
      headers: { 'x-api-key': api.keys.admin },
    });
    const records = ((await audit.json()) as { items: { reason: string; actor: string | null }[] }).items;
    const execs = records.filter((r) => r.reason === 'SandboxExec');
    expect(execs.length).toBeGreaterThan(0);
    expect(new Set(execs.map((r) => r.actor))).toEqual(new Set(['alice']));
    await call(alice, 'delete_sandbox', target);
  }, 300_000);

  test('an MCP client that goes away mid-exec ends the command (SIGTERM), as an HTTP client does', async () => {
    const name = `mcp-gone-${randomBytes(3).toString('hex')}`;
    const created = await call(alice, 'create_sandbox', {
      name,
      namespace: ns.name,
      templateRef: { name: template },
    });
    expect(created.json, created.text).toMatchObject({ status: { phase: 'Running' } });
    await reachable(api, ns, name);
    const target = { sandbox: name, namespace: ns.name };
    const script =
      "trap 'echo term > /workspace/term; exit 143' TERM; echo up > /workspace/up; while :; do sleep 0.05; done";
    const gone = new AbortController();
    const request = fetch(`${base}/api/v1/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': api.keys.alice,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'exec', arguments: { ...target, command: script } },
      }),
      signal: gone.signal,
    }).catch((err: unknown) => err);
    const cat = async (path: string) =>
      (await call(alice, 'exec', { ...target, command: `cat ${path} 2>/dev/null || true` })).json.stdout;
    await eventually(async () => (await cat('/workspace/up')) === 'up\n', {
      timeoutMs: SLOW,
      describe: () => 'the command started',
    });
    gone.abort();
    expect(await request).toBeInstanceOf(Error);
    await eventually(async () => (await cat('/workspace/term')) === 'term\n', {
      timeoutMs: 30_000,
      describe: () => 'the command got SIGTERM',
    });
    await call(alice, 'delete_sandbox', target);
  }, 300_000);

  test('configure and invoke an agent sandbox', async () => {
    const name = `mcp-agent-${randomBytes(3).toString('hex')}`;
    const created = await call(alice, 'create_sandbox', {
      name,
      namespace: ns.name,
      templateRef: { name: template },
      mode: 'agent',
    });
    expect(created.json, created.text).toMatchObject({ status: { phase: 'Running' } });
    await reachable(api, ns, name);
    const target = { sandbox: name, namespace: ns.name };
    const configured = await call(alice, 'configure_agent', {
      ...target,
      files: [{ path: '/workspace/agent.sh', content: 'echo working >&2; tr a-z A-Z\n' }],
      entrypoint: ['sh', '/workspace/agent.sh'],
      installCommand: ['sh', '-c', 'echo installed'],
    });
    expect(configured.isError, configured.text).toBe(false);
    expect(configured.json).toMatchObject({ installExitCode: 0, stdout: 'installed\n', skipped: false });
    const invoked = await call(alice, 'invoke_agent', { ...target, input: 'hello mcp' });
    expect(invoked.isError, invoked.text).toBe(false);
    expect(invoked.json).toMatchObject({
      invokeId: expect.any(String) as string,
      exitCode: 0,
      reason: 'completed',
      stdout: 'HELLO MCP',
      stderr: 'working\n',
    });

    // Detached: the tool answers at once with the id; the run goes on; its events come later.
    const started = await call(alice, 'start_agent_run', { ...target, input: 'later' });
    expect(started.isError, started.text).toBe(false);
    const { invokeId } = started.json as { invokeId: string; eventsUrl: string };
    expect(started.json).toEqual({
      invokeId,
      eventsUrl: expect.stringContaining(`/runs/${invokeId}/events`) as string,
    });
    const events = await call(alice, 'run_events', { ...target, invokeId });
    expect(events.isError, events.text).toBe(false);
    expect(events.json).toMatchObject({
      invokeId,
      exitCode: 0,
      reason: 'completed',
      stdout: 'LATER',
      stderr: 'working\n',
      lastEventId: expect.stringMatching(/^\d+$/) as string,
    });
    // Read again after the last id: nothing more, and no exit to report.
    const after = await call(alice, 'run_events', {
      ...target,
      invokeId,
      lastEventId: (events.json as { lastEventId: string }).lastEventId,
    });
    expect(after.json).toMatchObject({ invokeId, stdout: '', stderr: '' });
    const runs = await call(alice, 'list_runs', target);
    expect((runs.json as { items: { invokeId: string; detached: boolean; state: string }[] }).items).toEqual(
      expect.arrayContaining([expect.objectContaining({ invokeId, detached: true, state: 'exited' })]),
    );
    // A run that is not there is the API's 404, as a tool error.
    const missing = await call(alice, 'cancel_run', { ...target, invokeId: 'inv-nothere' });
    expect(missing.isError).toBe(true);
    expect(missing.json).toMatchObject({ status: 404 });
    await call(alice, 'delete_sandbox', target);
  }, 300_000);
});

describe('MCP over Streamable HTTP with OIDC bearer tokens', () => {
  test(
    'the token’s user is the caller of every tool call: owner-or-admin as with keys',
    async () => {
      const bearer = async (sub: string, groups: string[] = []) =>
        connectHttp({ authorization: `Bearer ${await issuer.token({ sub, groups })}` });
      const alice = await bearer('alice');
      const bob = await bearer('bob');
      const admin = await bearer('carol', ['svc-admins']);
      try {
        const name = `mcp-oidc-${randomBytes(3).toString('hex')}`;
        const target = { sandbox: name, namespace: ns.name };
        const created = await call(alice, 'create_sandbox', {
          name,
          namespace: ns.name,
          templateRef: { name: template },
          wait: false,
        });
        expect(created.isError, created.text).toBe(false);
        expect(created.json).toMatchObject({ sandboxId: name, spec: { createdBy: 'alice' } });
        expect(await call(bob, 'get_sandbox', target)).toMatchObject({
          isError: true,
          json: { status: 403, error: 'forbidden', message: `sandbox ${name} belongs to another user` },
        });
        expect(await call(admin, 'get_sandbox', target)).toMatchObject({
          isError: false,
          json: { sandboxId: name },
        });
        // The same user with a key sees it too: one identity, whichever credential.
        const byKey = await overHttp(api.keys.alice, 'alice');
        expect(await call(byKey, 'get_sandbox', target)).toMatchObject({ isError: false });
        await byKey.close();
        expect(await call(alice, 'delete_sandbox', target)).toMatchObject({ isError: false });
      } finally {
        await Promise.all([alice.close(), bob.close(), admin.close()]);
      }
    },
    SLOW,
  );
});
