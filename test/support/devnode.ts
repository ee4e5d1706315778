import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { sandboxdLauncher, startDevnode, type RunningDevnode } from '../../devnode/index.ts';
import type { TestNamespace } from './kube.ts';

export interface TestDevnode {
  readonly dataDir: string;
  readonly nodeName: string;
}

/**
 * A real devnode for the calling test file, scoped to its namespace: it registers its own
 * Node, runs that namespace's Pods under bubblewrap and keeps its folders in a temporary
 * directory (`svc-test-devnode-*`, which the leftover check looks for).
 */
export function useDevnode(ns: TestNamespace, opts: { enforceVolumeSize?: boolean } = {}): TestDevnode {
  const state = { dataDir: '', nodeName: '', devnode: undefined as RunningDevnode | undefined };
  beforeAll(async () => {
    state.dataDir = await mkdtemp(join(tmpdir(), 'svc-test-devnode-'));
    state.nodeName = `devnode-${ns.name}`;
    state.devnode = await startDevnode({
      kc: ns.kc,
      logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }),
      nodeName: state.nodeName,
      dataDir: state.dataDir,
      namespace: ns.name,
      sandboxdCommand: await sandboxdLauncher(resolve(import.meta.dirname, '../..')),
      ...opts,
    });
  }, 60_000);
  afterAll(async () => {
    await state.devnode?.stop();
    await ns.core.deleteNode({ name: state.nodeName }).catch(() => undefined);
    if (state.dataDir) await rm(state.dataDir, { recursive: true, force: true });
  }, 60_000);
  return {
    get dataDir() {
      return state.dataDir;
    },
    get nodeName() {
      return state.nodeName;
    },
  };
}
