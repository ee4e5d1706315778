import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ApiextensionsV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  AgentHarness,
  CATEGORY,
  GROUP,
  SandboxSpec,
  SandboxTemplateSpec,
  TemplateRef,
  VERSION,
} from '../core/index.ts';
import { eventually, kubeAssets } from '../stack/index.ts';
import { kubeRequest, useNamespace } from './support/index.ts';

const ns = useNamespace('crds');
// The category test lists a whole namespace, so it gets one of its own.
const categoryNs = useNamespace('crds-category');
const plural = 'sandboxes';

function sandbox(name: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'Sandbox',
    metadata: { name },
    spec: { templateRef: { name: 'default' }, ...spec },
  };
}

async function create(body: object) {
  return kubeRequest(ns.kc, {
    method: 'POST',
    path: `/apis/${GROUP}/${VERSION}/namespaces/${ns.name}/${plural}`,
    body,
  });
}

async function mergePatch(name: string, patch: object, subresource = '') {
  return kubeRequest(ns.kc, {
    method: 'PATCH',
    path: `/apis/${GROUP}/${VERSION}/namespaces/${ns.name}/${plural}/${name}${subresource}`,
    headers: { 'content-type': 'application/merge-patch+json' },
    body: patch,
  });
}

let kubectlPath = '';
let cacheDir = '';
beforeAll(async () => {
  kubectlPath = join(await kubeAssets(), 'kubectl');
  // A discovery cache of its own: a cache left by an earlier control plane on the same
  // port would answer with that run's resources.
  cacheDir = await mkdtemp(join(tmpdir(), 'svc-kubectl-cache-'));
});
afterAll(() => rm(cacheDir, { recursive: true, force: true }));

/** kubectl, as a user runs it, against the run's control plane; resolves with its stdout. */
async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(
    kubectlPath,
    ['--kubeconfig', inject('kubeconfigPath'), '--cache-dir', cacheDir, ...args],
    { maxBuffer: 1 << 24 },
  );
  return stdout;
}

interface Sbx {
  spec: Record<string, unknown>;
  status?: Record<string, unknown>;
}

describe('CRDs on a real kube-apiserver', () => {
  it('runs against the pinned Kubernetes release', () => {
    expect(inject('kubeVersion')).toMatch(/^v1\.(3[3-9]|[4-9][0-9])\./);
  });

  it.each([
    'sandboxes.svc.io',
    'sandboxtemplates.svc.io',
    'clustersandboxtemplates.svc.io',
    'volumesnapshots.snapshot.storage.k8s.io',
    'volumesnapshotcontents.snapshot.storage.k8s.io',
    'volumesnapshotclasses.snapshot.storage.k8s.io',
  ])('%s is Established', async (name) => {
    const crd = await ns.kc.makeApiClient(ApiextensionsV1Api).readCustomResourceDefinition({ name });
    expect(crd.status?.conditions?.find((c) => c.type === 'Established')?.status).toBe('True');
  });

  it('accepts a valid Sandbox and defaults mode to code', async () => {
    const res = await create(sandbox('valid'));
    expect(res.status).toBe(201);
    const spec = res.json<Sbx>().spec;
    expect(spec.mode).toBe('code');
    expect(spec.templateRef).toEqual({ name: 'default', kind: 'ClusterSandboxTemplate' });
    expect(spec.stopped).toBe(false);
  });

  it('refuses mode: shell by schema validation', async () => {
    const res = await create(sandbox('shell', { mode: 'shell' }));
    expect(res.status).toBe(422);
    const causes = res.json<{ details: { causes: { field: string; reason: string }[] } }>().details.causes;
    expect(causes).toContainEqual(
      expect.objectContaining({ field: 'spec.mode', reason: 'FieldValueNotSupported' }),
    );
  });

  it('refuses a bad duration and a bad quantity', async () => {
    const res = await create(sandbox('bad', { timeout: '1 hour', resources: { limits: { cpu: 'lots' } } }));
    expect(res.status).toBe(422);
    expect(res.body).toContain('spec.timeout');
    expect(res.body).toContain('spec.resources.limits.cpu');
  });

  it('refuses a templateRef.name that is not a Kubernetes name (control characters never stored)', async () => {
    const res = await create(sandbox('ctl', { templateRef: { name: 'def\u0001ault' } }));
    expect(res.status).toBe(422);
    expect(res.body).toContain('spec.templateRef.name');
  });

  it('refuses a name too long for the names derived from it', async () => {
    const res = await create(sandbox('a'.repeat(54)));
    expect(res.status).toBe(422);
    expect(res.body).toContain('at most 53 characters');
  });

  it.each([
    ['mode', { mode: 'agent' }],
    ['templateRef', { templateRef: { name: 'other' } }],
    ['cloneFromSnapshot', { cloneFromSnapshot: 'snap-2' }],
    ['createdBy', { createdBy: 'mallory' }],
  ])('refuses an update that changes %s', async (field, change) => {
    const name = `immutable-${field.toLowerCase()}`;
    expect((await create(sandbox(name, { cloneFromSnapshot: 'snap-1', createdBy: 'alice' }))).status).toBe(
      201,
    );
    const res = await mergePatch(name, { spec: change });
    expect(res.status).toBe(422);
    expect(res.body).toContain(`${field} is immutable`);
  });

  it('refuses removing an immutable field once set', async () => {
    expect((await create(sandbox('unset-created-by', { createdBy: 'alice' }))).status).toBe(201);
    const res = await mergePatch('unset-created-by', { spec: { createdBy: null } });
    expect(res.status).toBe(422);
    expect(res.body).toContain('createdBy is immutable');
  });

  it('allows changing mutable fields', async () => {
    expect((await create(sandbox('mutable'))).status).toBe(201);
    const res = await mergePatch('mutable', { spec: { stopped: true, timeout: '1h30m' } });
    expect(res.status).toBe(200);
    expect(res.json<Sbx>().spec).toMatchObject({ stopped: true, timeout: '1h30m' });
  });

  it('writes status only through the status subresource', async () => {
    const created = await create({ ...sandbox('status'), status: { phase: 'Running' } });
    expect(created.status).toBe(201);
    expect(created.json<Sbx>().status).toBeUndefined();

    const viaMain = await mergePatch('status', { status: { phase: 'Running' } });
    expect(viaMain.status).toBe(200);
    expect(viaMain.json<Sbx>().status).toBeUndefined();

    const viaStatus = await mergePatch('status', { status: { phase: 'Running' } }, '/status');
    expect(viaStatus.status).toBe(200);
    expect(viaStatus.json<Sbx>().status).toEqual({ phase: 'Running' });

    const bad = await mergePatch('status', { status: { phase: 'Exploded' } }, '/status');
    expect(bad.status).toBe(422);
  });

  it('serves the printer columns through the Table API', async () => {
    expect((await create(sandbox('table', { mode: 'agent' }))).status).toBe(201);
    expect((await mergePatch('table', { status: { phase: 'Creating' } }, '/status')).status).toBe(200);
    const res = await kubeRequest(ns.kc, {
      path: `/apis/${GROUP}/${VERSION}/namespaces/${ns.name}/${plural}/table`,
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    });
    expect(res.status).toBe(200);
    const table = res.json<{ columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] }>();
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Mode', 'Phase', 'Template', 'Age']);
    expect(table.rows[0]!.cells.slice(0, 4)).toEqual(['table', 'agent', 'Creating', 'default']);
  });

  it('knows the short name sbx', async () => {
    const res = await kubeRequest(ns.kc, { path: `/apis/${GROUP}/${VERSION}` });
    const resources = res.json<{ resources: { name: string; shortNames?: string[] }[] }>().resources;
    expect(resources.find((r) => r.name === plural)?.shortNames).toEqual(['sbx']);
  });

  it('leaves `kubectl get svc` to Services; the svc category lists sandboxes and templates', async () => {
    expect(CATEGORY).not.toBe('svc');
    for (const [kind, plural, spec] of [
      ['Sandbox', 'sandboxes', { templateRef: { name: 'default' } }],
      ['SandboxTemplate', 'sandboxtemplates', { image: 'busybox' }],
    ] as const) {
      const res = await kubeRequest(categoryNs.kc, {
        method: 'POST',
        path: `/apis/${GROUP}/${VERSION}/namespaces/${categoryNs.name}/${plural}`,
        body: { apiVersion: `${GROUP}/${VERSION}`, kind, metadata: { name: 'category' }, spec },
      });
      expect(res.status).toBe(201);
    }
    expect(await kubectl('get', 'svc', '-n', 'default', '-o', 'name')).toBe('service/kubernetes\n');
    expect(await kubectl('get', 'services', '-n', 'default', '-o', 'name')).toBe('service/kubernetes\n');
    const listed = await kubectl('get', CATEGORY, '-n', categoryNs.name, '-o', 'name');
    // Cluster-scoped templates (which other test files on this control plane make) are listed
    // in every namespace; of the namespaced kinds, exactly this test's own.
    const names = listed.trim().split('\n');
    expect(names.filter((n) => !n.startsWith('clustersandboxtemplate.')).sort()).toEqual([
      'sandbox.svc.io/category',
      'sandboxtemplate.svc.io/category',
    ]);
    // The category takes in every svc kind; each CRD declares it and nothing else.
    const res = await kubeRequest(ns.kc, { path: `/apis/${GROUP}/${VERSION}` });
    const resources = res.json<{ resources: { name: string; categories?: string[] }[] }>().resources;
    expect(
      resources
        .filter((r) => !r.name.includes('/'))
        .map((r) => [r.name, r.categories])
        .sort(),
    ).toEqual([
      ['clustersandboxtemplates', [CATEGORY]],
      ['sandboxes', [CATEGORY]],
      ['sandboxtemplates', [CATEGORY]],
      ['sandboxwarmpools', [CATEGORY]],
    ]);
  });

  describe('kubectl explain', () => {
    // kubectl wraps long texts; compare with runs of white space made one space.
    const flat = (text: string) => text.replace(/\s+/g, ' ').trim();
    const explain = async (field: string) => flat(await kubectl('explain', field));
    // A field's text is on the field, or on the schema it wraps (`Resources.optional()`).
    type Described = { description?: string; unwrap?: () => Described };
    const text = (schema: Described): string =>
      flat(schema.description ?? (schema.unwrap ? text(schema.unwrap()) : ''));

    it('describes sandbox.spec and each of its fields, from the zod schemas', async () => {
      expect(text(SandboxSpec)).not.toBe('');
      // The apiserver publishes a new CRD's OpenAPI a moment after it is Established.
      let out = '';
      await eventually(async () => (out = await explain('sandbox.spec')).includes(text(SandboxSpec)), {
        timeoutMs: 60_000,
        describe: () => `kubectl explain sandbox.spec: ${out}`,
      });
      expect(out).toContain(`FIELD: spec <Object> DESCRIPTION: ${text(SandboxSpec)} FIELDS:`);
      for (const [name, field] of Object.entries(SandboxSpec.shape)) {
        expect(text(field), name).not.toBe('');
        expect(out).toContain(`${name} <`);
        expect(out).toContain(text(field));
      }
      expect(out).toContain(`templateRef <Object> -required- ${text(SandboxSpec.shape.templateRef)}`);
    });

    it('describes nested fields of a Sandbox and of both template kinds', async () => {
      const nested: [string, Described][] = [
        ['sandbox.spec.templateRef.kind', TemplateRef.shape.kind],
        ['sandbox.spec.harness.agent.entrypoint', AgentHarness.shape.entrypoint],
        ['sandboxtemplate.spec.network', SandboxTemplateSpec.shape.network],
        ['clustersandboxtemplate.spec.image', SandboxTemplateSpec.shape.image],
        ['sandboxtemplate.spec.runtimeClassName', SandboxTemplateSpec.shape.runtimeClassName],
        ['clustersandboxtemplate.spec.runtimeClassName', SandboxTemplateSpec.shape.runtimeClassName],
        ['clustersandboxtemplate.spec.hostUsers', SandboxTemplateSpec.shape.hostUsers],
      ];
      for (const [field, schema] of nested) {
        expect(text(schema), field).not.toBe('');
        let out = '';
        await eventually(async () => (out = await explain(field)).includes(text(schema)), {
          timeoutMs: 60_000,
          describe: () => `kubectl explain ${field}: ${out}`,
        });
        expect(out).toContain(`DESCRIPTION: ${text(schema)}`);
      }
    });

    it('describes the status the operator writes', async () => {
      const out = await explain('sandbox.status.phase');
      expect(out).toContain('DESCRIPTION: Pending, Creating, Running, Stopped or Error');
    });
  });
});
