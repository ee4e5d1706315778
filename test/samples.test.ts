import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { useNamespace } from './support/index.ts';

const ns = useNamespace('samples');
const dir = join(import.meta.dirname, '..', 'config', 'samples');
const files = (await readdir(dir)).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml').sort();

describe('config/samples', () => {
  it.each(files)('%s is accepted by the real apiserver (server-side dry run)', async (file) => {
    const obj = parse(await readFile(join(dir, file), 'utf8')) as KubernetesObject;
    if (obj.kind === 'Sandbox') obj.metadata = { ...obj.metadata, namespace: ns.name };
    // Other test files on this control plane install the sample templates themselves (as
    // make dev does); a dry-run create of a name that exists would be a 409, so this checks
    // the same object under a name of its own.
    else obj.metadata = { ...obj.metadata, name: `${obj.metadata?.name}-${ns.name}` };
    const created = await KubernetesObjectApi.makeApiClient(ns.kc).create(obj, undefined, 'All');
    expect(created.metadata?.name).toBe(obj.metadata?.name);
  });
});
