// Issue 33, deliverable 2: user code cannot touch sandboxd. On the real control plane with
// devnode and the real sandboxd, through the public API: every process a sandbox starts
// (exec, terminal, configure's install, invoke) runs as the template's user (1000 unless it
// says otherwise) with no capabilities; the token is sandboxd's alone; sandboxd cannot be
// signalled or read; files written through the API are the user's; root only where policy
// allows it. The sandbox Pods are created in a namespace enforcing Pod Security `baseline`.
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { SvcClient } from '../../clients/typescript/index.ts';
import { SandboxPod, type Sandbox } from '../../core/index.ts';
import { sandboxPod } from '../../operator/manifests/index.ts';
import { eventually } from '../../stack/index.ts';
import {
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  tarOf,
  useOperator,
  waitForSandboxPhase,
  type TestApi,
} from '../support/index.ts';
import { SLOW, output, reachable, sse } from '../api/code-mode.ts';

const ns = useNamespace('isolation');
useDevnode(ns);
const template = useClusterTemplate('isolation', ns, { command: ['sleep', '86400'] });
const rootTemplate = useClusterTemplate('isolation-root', ns, { command: ['sleep', '86400'], runAsUser: 0 });
useOperator(ns, { identity: 'isolation-test', logger: pino({ level: 'silent' }) });
let api: TestApi;
let base: string;
const TOKEN = `${SandboxPod.tokenDir}/${SandboxPod.tokenKey}`;

beforeAll(async () => {
  // Every sandbox Pod of this file must pass the Pod Security admission at `baseline`.
  const namespace = await ns.core.readNamespace({ name: ns.name });
  namespace.metadata!.labels = {
    ...namespace.metadata!.labels,
    'pod-security.kubernetes.io/enforce': 'baseline',
  };
  await ns.core.replaceNamespace({ name: ns.name, body: namespace });
  api = await startTestApi(ns, { statusWaitMs: SLOW });
  base = await api.serve();
  await create('code', template);
  await waitForSandboxPhase(ns, 'code', 'Running', SLOW);
  await reachable(api, ns, 'code');
}, SLOW * 2);
afterAll(async () => api?.close(), 30_000);
// A test that set a policy leaves none behind, whether it passed or not.
afterEach(async () => {
  const res = await api.call('DELETE', `/governance/policies/${ns.name}`, { key: api.keys.admin });
  expect([204, 404]).toContain(res.status);
}, 30_000);

async function create(name: string, templateName: string, spec: object = {}): Promise<Response> {
  const res = await api.call('POST', '/sandboxes', {
    key: api.keys.alice,
    body: { name, templateRef: { name: templateName }, ...spec },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return res;
}

/** `POST /exec` as JSON: its exit code, stdout and stderr. */
async function exec(name: string, script: string) {
  const res = await api.call('POST', `/sandboxes/${name}/exec`, {
    key: api.keys.alice,
    body: { command: script },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { exitCode: number; stdout: string; stderr: string };
}

describe('the template user', () => {
  test('exec runs as 1000:1000 with no groups, no capabilities, no_new_privs and the user HOME', async () => {
    const r = await exec(
      'code',
      'id -u; id -g; id -G; grep -E "^(CapInh|CapPrm|CapEff|CapAmb|NoNewPrivs):" /proc/self/status; echo "$USER $HOME"',
    );
    expect(r).toMatchObject({ exitCode: 0, stderr: '' });
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 8)).toEqual([
      '1000',
      '1000',
      '1000',
      'CapInh:\t0000000000000000',
      'CapPrm:\t0000000000000000',
      'CapEff:\t0000000000000000',
      'CapAmb:\t0000000000000000',
      'NoNewPrivs:\t1',
    ]);
    expect(lines[8]).toMatch(/^\S+ \/(workspace|home\/\S+)$/);
    // The template's own process too.
    expect((await exec('code', 'stat -c %u "/proc/$(pgrep -x sleep | head -1)"')).stdout).toBe('1000\n');
  });

  test('a terminal runs as 1000', async () => {
    const svc = new SvcClient({ baseUrl: base, apiKey: api.keys.alice, namespace: ns.name });
    const session = await svc.openTerminal('code', { cols: 80, rows: 24 });
    let out = '';
    session.onData((b) => (out += new TextDecoder().decode(b)));
    session.send('echo "uid=$(id -u)"\n');
    let uid: RegExpMatchArray | null = null;
    await eventually(() => Promise.resolve((uid = /[\r\n]uid=(\d+)\r\n/.exec(out)) !== null), {
      timeoutMs: 15_000,
      describe: () => JSON.stringify(out),
    });
    expect(uid![1]).toBe('1000');
    session.send('exit\n');
    expect(await session.exit).toBe(0);
  }, 30_000);

  test(
    'configure installs and invoke runs as 1000; its files are 1000s',
    async () => {
      await create('agent', template, { mode: 'agent' });
      await waitForSandboxPhase(ns, 'agent', 'Running', SLOW);
      await reachable(api, ns, 'agent');
      const configured = await sse(base, ns, 'POST', '/sandboxes/agent/configure', {
        key: api.keys.alice,
        body: JSON.stringify({
          files: [{ path: '/workspace/agent.sh', content: 'id -u; stat -c %u:%g /workspace/agent.sh\n' }],
          entrypoint: ['sh', '/workspace/agent.sh'],
          installCommand: ['sh', '-c', 'id -u > /workspace/install.uid'],
        }),
      });
      expect(configured.status, JSON.stringify(configured.body)).toBe(200);
      expect(configured.events.at(-1)?.event, JSON.stringify(configured.events)).toBe('result');
      const invoked = await sse(base, ns, 'POST', '/sandboxes/agent/invoke', {
        key: api.keys.alice,
        body: '',
      });
      expect(invoked.status).toBe(200);
      expect(output(invoked)).toBe('1000\n1000:1000\n');
      expect((await exec('agent', 'cat /workspace/install.uid')).stdout).toBe('1000\n');
    },
    SLOW * 2,
  );
});

describe('sandboxd is out of reach', () => {
  test('the token cannot be read from inside', async () => {
    const r = await exec('code', `cat ${TOKEN}`);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`cat: ${TOKEN}: Permission denied\n`);
  });

  test('sandboxd cannot be killed, traced or read, and keeps answering', async () => {
    // The shell's parent is sandboxd, which started it.
    const r = await exec(
      'code',
      [
        'pid=$PPID; stat -c %u "/proc/$pid"',
        'kill -9 "$pid" 2>/dev/null; echo "kill $?"',
        'kill -9 1 2>/dev/null; echo "kill1 $?"',
        'head -c 1 "/proc/$pid/mem" 2>/dev/null; echo "mem $?"',
        'cat "/proc/$pid/environ" 2>/dev/null; echo "environ $?"',
        `test -w ${SandboxPod.binDir}/sandboxd; echo "writable $?"`,
      ].join('\n'),
    );
    expect(r.stdout).toBe('0\nkill 1\nkill1 1\nmem 1\nenviron 1\nwritable 1\n');
    expect(await exec('code', 'echo still here')).toMatchObject({ exitCode: 0, stdout: 'still here\n' });
  });
});

describe('files written through the API', () => {
  test('an upload and the folder it made belong to 1000 and the user can change them', async () => {
    const put = await fetch(`${base}/api/v1/sandboxes/code/files/workspace/up/a.txt?namespace=${ns.name}`, {
      method: 'PUT',
      headers: { 'x-api-key': api.keys.alice },
      body: 'hello',
    });
    expect(put.status, await put.clone().text()).toBe(201);
    const r = await exec(
      'code',
      'stat -c "%n %u:%g" /workspace/up /workspace/up/a.txt; echo more >> /workspace/up/a.txt && echo appended',
    );
    expect(r.stdout).toBe('/workspace/up 1000:1000\n/workspace/up/a.txt 1000:1000\nappended\n');
  });
});

describe("sandboxd's capabilities are the ones it needs", () => {
  test("the API reads and writes the user's private folder (DAC_OVERRIDE) and an archive resets its mode (FOWNER)", async () => {
    const made = await exec(
      'code',
      'mkdir -m 700 /workspace/private && echo s > /workspace/private/f && chmod 600 /workspace/private/f',
    );
    expect(made.exitCode).toBe(0);
    const files = (rest: string) => `${base}/api/v1/sandboxes/code/files/${rest}?namespace=${ns.name}`;
    const alice = { 'x-api-key': api.keys.alice };
    const read = await fetch(files('workspace/private/f'), { headers: alice });
    expect(read.status).toBe(200);
    expect(await read.text()).toBe('s\n');
    const put = await fetch(files('workspace/private/g'), { method: 'PUT', headers: alice, body: 'g' });
    expect(put.status, await put.clone().text()).toBe(201);
    // The archive names the user's folder with mode 0750 and adds a file and a link in it.
    const archive = await fetch(
      `${base}/api/v1/sandboxes/code/archive?namespace=${ns.name}&path=/workspace`,
      {
        method: 'PUT',
        headers: alice,
        body: tarOf([
          { name: 'private/', type: 'dir', mode: 0o750 },
          { name: 'private/t', body: 't' },
          { name: 'private/l', type: 'symlink', link: 't' },
        ]),
      },
    );
    expect(archive.status, await archive.clone().text()).toBe(200);
    const r = await exec('code', 'cd /workspace/private && stat -c "%n %a %u:%g" . f g t l');
    expect(r.stdout).toBe(
      '. 750 1000:1000\nf 600 1000:1000\ng 644 1000:1000\nt 644 1000:1000\nl 777 1000:1000\n',
    );
  });
});

describe('root only where policy allows it', () => {
  test(
    'a runAsUser: 0 template is refused without allowRootSandboxes and runs as root with it',
    async () => {
      const refused = await api.call('POST', '/sandboxes', {
        key: api.keys.alice,
        body: { name: 'root', templateRef: { name: rootTemplate } },
      });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({
        error: 'policy_violation',
        violations: [
          {
            code: 'root_sandbox_not_allowed',
            message: `template "${rootTemplate}" runs as root (runAsUser: 0); policy allowRootSandboxes is not true`,
          },
        ],
      });
      const put = await api.call('PUT', `/governance/policies/${ns.name}`, {
        key: api.keys.admin,
        body: { allowRootSandboxes: true },
      });
      expect(put.status, await put.clone().text()).toBe(200);
      await create('root', rootTemplate);
      await waitForSandboxPhase(ns, 'root', 'Running', SLOW);
      await reachable(api, ns, 'root');
      expect((await exec('root', 'id -u')).stdout).toBe('0\n');
    },
    SLOW * 2,
  );
});

describe('Pod Security', () => {
  test('the sandbox Pod is admitted at baseline, and restricted would refuse it (sandboxd is root)', async () => {
    // The Pods above were admitted in this namespace, which enforces baseline.
    const pods = await ns.core.listNamespacedPod({ namespace: ns.name });
    expect(pods.items.map((p) => p.metadata?.name)).toContain('code');
    const sandbox = (await ns.custom.getNamespacedCustomObject({
      group: 'svc.io',
      version: 'v1alpha1',
      plural: 'sandboxes',
      namespace: ns.name,
      name: 'code',
    })) as Sandbox;
    const pod = sandboxPod(
      { ...sandbox, metadata: { ...sandbox.metadata, name: 'probe' } },
      { image: 'debian:bookworm' },
      { sandboxdImage: 'svc:dev', sandboxdPath: '/usr/local/bin/sandboxd' } as never,
    );
    delete pod.metadata!.ownerReferences;
    delete pod.metadata!.namespace;
    for (const level of ['baseline', 'restricted']) {
      const name = `${ns.name}-${level}`.slice(0, 63);
      await ns.core.createNamespace({
        body: { metadata: { name, labels: { 'pod-security.kubernetes.io/enforce': level } } },
      });
      try {
        const created = ns.core.createNamespacedPod({ namespace: name, body: pod, dryRun: 'All' });
        if (level === 'baseline') await expect(created).resolves.toMatchObject({ kind: 'Pod' });
        else {
          const err = (await created.catch((e: unknown) => e)) as { code: number; body: string };
          expect(err.code).toBe(403);
          const message = (JSON.parse(err.body) as { message: string }).message;
          expect(message).toMatch(/violates PodSecurity "restricted:latest"/);
          expect(message).toMatch(/runAsNonRoot != true/);
          expect(message).toMatch(/unrestricted capabilities/);
        }
      } finally {
        await ns.core.deleteNamespace({ name }).catch(() => undefined);
      }
    }
  });
});
