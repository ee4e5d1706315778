// The Argo CD health checks in config/argocd, run the way Argo CD runs them (the live object
// in the global `obj`, the returned table read) by Debian's lua5.4, on objects read back
// from the real apiserver with their status written through the status subresource.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { GROUP, VERSION } from '../core/index.ts';
import { kubeAssets } from '../stack/index.ts';
import { kubeRequest, useNamespace } from './support/index.ts';

const root = join(import.meta.dirname, '..');
const SANDBOX_CHECK = join(root, 'config/argocd/health-sandbox.lua');
const TEMPLATE_CHECK = join(root, 'config/argocd/health-template.lua');

const ns = useNamespace('argocd-health');
const api = `/apis/${GROUP}/${VERSION}`;

/** A Lua string literal of any text: printable ASCII as is, every other byte as `\ddd`. */
function luaString(text: string): string {
  let out = '"';
  for (const byte of Buffer.from(text, 'utf8')) {
    const printable = byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c;
    out += printable ? String.fromCharCode(byte) : `\\${String(byte).padStart(3, '0')}`;
  }
  return `${out}"`;
}

/** A JSON value as a Lua table constructor, as Argo CD hands the object to its scripts. */
function luaValue(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') return luaString(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `{${value.map(luaValue).join(', ')}}`;
  const fields = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `[${luaString(k)}] = ${luaValue(v)}`);
  return `{${fields.join(', ')}}`;
}

interface Health {
  status: string;
  message: string;
}

/** Runs a health check with `obj` set to the object; resolves with the table it returns. */
function runCheck(script: string, obj: unknown): Promise<Health> {
  const chunk = [
    `obj = ${luaValue(obj)}`,
    `local hs = dofile(${luaString(script)})`,
    'io.write(hs.status, "\\n", hs.message)',
  ].join('\n');
  return new Promise((resolve, reject) => {
    const child = execFile('lua5.4', ['-'], (err, stdout, stderr) => {
      if (err) return reject(new Error(`lua5.4 failed: ${stderr}`));
      const [status = '', ...message] = stdout.split('\n');
      resolve({ status, message: message.join('\n') });
    });
    child.stdin!.end(chunk);
  });
}

async function request(method: string, path: string, body?: object, patch = false) {
  const res = await kubeRequest(ns.kc, {
    method,
    path,
    ...(body ? { body } : {}),
    ...(patch ? { headers: { 'content-type': 'application/merge-patch+json' } } : {}),
  });
  expect(res.status, `${method} ${path}: ${res.body}`).toBeLessThan(300);
  return res.json<{ metadata: { generation: number }; status?: object }>();
}

const sandboxPath = (name = '') => `${api}/namespaces/${ns.name}/sandboxes${name ? `/${name}` : ''}`;

async function createSandbox(name: string) {
  return request('POST', sandboxPath(), {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'Sandbox',
    metadata: { name },
    spec: { templateRef: { name: 'default' } },
  });
}

// Cluster-scoped, so named after this file's namespace (unique per run) and deleted after.
const clusterTemplate = () => ns.name;
afterAll(async () => {
  await kubeRequest(ns.kc, { method: 'DELETE', path: `${api}/clustersandboxtemplates/${clusterTemplate()}` });
});

describe('Argo CD health check of a Sandbox', () => {
  it('is Progressing before the operator has written a phase', async () => {
    const created = await createSandbox('fresh');
    expect(created.status).toBeUndefined();
    expect(await runCheck(SANDBOX_CHECK, await request('GET', sandboxPath('fresh')))).toEqual({
      status: 'Progressing',
      message: 'Waiting for the operator to pick up the Sandbox',
    });
  });

  it.each([
    ['Pending', undefined, 'Progressing', 'Sandbox is Pending'],
    ['Creating', 'waiting for the Pod', 'Progressing', 'waiting for the Pod'],
    ['Running', 'sandboxd answers', 'Healthy', 'sandboxd answers'],
    ['Running', '', 'Healthy', 'Sandbox is Running'],
    ['Stopped', 'stopped after its timeout of 1h', 'Suspended', 'stopped after its timeout of 1h'],
    [
      'Error',
      'ClusterSandboxTemplate "nope" not found',
      'Degraded',
      'ClusterSandboxTemplate "nope" not found',
    ],
  ])('phase %s (message %j) is %s: %s', async (phase, message, status, expected) => {
    const name = `${phase.toLowerCase()}-${message === undefined ? 'none' : message.length}`;
    const { metadata } = await createSandbox(name);
    await request(
      'PATCH',
      `${sandboxPath(name)}/status`,
      {
        status: {
          phase,
          observedGeneration: metadata.generation,
          ...(message === undefined ? {} : { message }),
        },
      },
      true,
    );
    const live = await request('GET', sandboxPath(name));
    expect(live.status).toMatchObject({ phase });
    expect(await runCheck(SANDBOX_CHECK, live)).toEqual({ status, message: expected });
  });

  it('is Progressing while the operator has not acted on a spec change', async () => {
    const { metadata } = await createSandbox('stopping');
    await request(
      'PATCH',
      `${sandboxPath('stopping')}/status`,
      { status: { phase: 'Running', observedGeneration: metadata.generation } },
      true,
    );
    const live = await request('PATCH', sandboxPath('stopping'), { spec: { stopped: true } }, true);
    expect(live.metadata.generation).toBe(metadata.generation + 1);
    expect(await runCheck(SANDBOX_CHECK, live)).toEqual({
      status: 'Progressing',
      message: `Waiting for the operator to act on generation ${metadata.generation + 1}`,
    });
  });
});

describe('Argo CD health check of the templates', () => {
  it('finds a SandboxTemplate and a ClusterSandboxTemplate Healthy', async () => {
    const template = { apiVersion: `${GROUP}/${VERSION}`, spec: { image: 'debian:bookworm' } };
    await request('POST', `${api}/namespaces/${ns.name}/sandboxtemplates`, {
      ...template,
      kind: 'SandboxTemplate',
      metadata: { name: 'python' },
    });
    await request('POST', `${api}/clustersandboxtemplates`, {
      ...template,
      kind: 'ClusterSandboxTemplate',
      metadata: { name: clusterTemplate() },
    });
    const namespaced = await request('GET', `${api}/namespaces/${ns.name}/sandboxtemplates/python`);
    expect(await runCheck(TEMPLATE_CHECK, namespaced)).toEqual({
      status: 'Healthy',
      message: 'SandboxTemplate python is ready for Sandboxes',
    });
    const cluster = await request('GET', `${api}/clustersandboxtemplates/${clusterTemplate()}`);
    expect(await runCheck(TEMPLATE_CHECK, cluster)).toEqual({
      status: 'Healthy',
      message: `ClusterSandboxTemplate ${clusterTemplate()} is ready for Sandboxes`,
    });
  });
});

describe('docs/gitops.md', () => {
  it('quotes each health check exactly as config/argocd holds it', async () => {
    const doc = await readFile(join(root, 'docs/gitops.md'), 'utf8');
    for (const script of [SANDBOX_CHECK, TEMPLATE_CHECK]) {
      expect(doc).toContain(`\`\`\`lua\n${await readFile(script, 'utf8')}\`\`\`\n`);
    }
  });

  it("installs them with its own command, keeping argocd-cm's other keys", async () => {
    const doc = await readFile(join(root, 'docs/gitops.md'), 'utf8');
    const command = /```sh\n(kubectl -n argocd create configmap argocd-cm[^]*?)```/.exec(doc)?.[1];
    expect(command).toBeDefined();
    await request('POST', `/api/v1/namespaces/${ns.name}/configmaps`, {
      metadata: { name: 'argocd-cm' },
      data: { url: 'https://argocd.example' },
    });
    // The page's command as written, with this run's kubectl, control plane and namespace.
    const kubectl = `${join(await kubeAssets(), 'kubectl')} --kubeconfig ${inject('kubeconfigPath')}`;
    const script = command!.replaceAll('kubectl -n argocd', `${kubectl} -n ${ns.name}`);
    await new Promise<void>((resolve, reject) =>
      execFile('bash', ['-euo', 'pipefail', '-c', script], { cwd: root }, (err, _out, stderr) =>
        err ? reject(new Error(`${err.message}: ${stderr}`)) : resolve(),
      ),
    );
    const cm = await kubeRequest(ns.kc, { path: `/api/v1/namespaces/${ns.name}/configmaps/argocd-cm` });
    const sandboxCheck = await readFile(SANDBOX_CHECK, 'utf8');
    const templateCheck = await readFile(TEMPLATE_CHECK, 'utf8');
    expect(cm.json<{ data: Record<string, string> }>().data).toEqual({
      url: 'https://argocd.example',
      'resource.customizations.health.svc.io_Sandbox': sandboxCheck,
      'resource.customizations.health.svc.io_SandboxTemplate': templateCheck,
      'resource.customizations.health.svc.io_ClusterSandboxTemplate': templateCheck,
    });
  });
});
