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
import { waitFor } from '../controlplane/index.ts';
import {
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
useOperator(ns, { identity: 'mcp-test', logger: pino({ level: 'silent' }) });
let api: TestApi;
let base: string;
let home: string;

beforeAll(async () => {
  assertBuilt();
  api = await startTestApi(ns, { statusWaitMs: SLOW });
  base = await api.serve();
  home = await mkdtemp(join(tmpdir(), 'svc-test-mcp-'));
}, SLOW);
afterAll(async () => {
  await api?.close();
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
  'stop_sandbox',
  'resume_sandbox',
  'delete_sandbox',
];

type Connect = (key: string, who: string) => Promise<Client>;

/** The SDK's client over Streamable HTTP, its key in every request's X-API-Key. */
const overHttp: Connect = async (key) => {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/api/v1/mcp`), {
      requestInit: { headers: { 'x-api-key': key } },
    }),
  );
  return client;
};

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
    await waitFor(
      async () => (await call(alice, 'get_sandbox', { sandbox: name, namespace: ns.name })).json.error === 'not_found',
      { timeoutMs: SLOW, describe: () => `sandbox ${name} gone` },
    );
  }, 300_000);
});
