// `svc operator --metrics-listen` as a real process: /metrics answers from start, while
// another replica holds the Lease (svc_operator_leader 0, process metrics, no sandbox
// gauges), and shows the replica leading once the Lease is free.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { eventually, type Managed, startManaged } from '../../stack/index.ts';
import { useNamespace } from '../support/index.ts';

const ns = useNamespace('opstandby');
const root = resolve(import.meta.dirname, '../..');
const lease = { group: 'coordination.k8s.io', version: 'v1', plural: 'leases', name: 'svc-operator' };
let logDir = '';
let standby: Managed | undefined;

beforeAll(async () => {
  logDir = await mkdtemp(join(tmpdir(), 'svc-test-opstandby-'));
});
afterAll(async () => {
  await standby?.stop(5_000);
  if (logDir) await rm(logDir, { recursive: true, force: true });
}, 30_000);

const log = async () => (standby ? await readFile(standby.logPath, 'utf8').catch(() => '') : '');

describe('operator metrics on a standby', () => {
  test('/metrics answers while another replica holds the Lease, then shows this one leading', async () => {
    // Another replica's Lease, renewed just now and good for an hour.
    const now = new Date().toISOString().replace(/Z$/, '000Z');
    await ns.custom.createNamespacedCustomObject({
      ...lease,
      namespace: ns.name,
      body: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: lease.name, namespace: ns.name },
        spec: { holderIdentity: 'other', leaseDurationSeconds: 3600, acquireTime: now, renewTime: now },
      },
    });
    standby = startManaged(
      'operator-standby',
      join(root, 'node_modules/.bin/node'),
      [
        join(root, 'cmd/svc.ts'),
        'operator',
        ...['--kubeconfig', inject('kubeconfigPath')],
        ...['--sandbox-namespaces', ns.name, '--service-namespace', ns.name],
        ...['--identity', 'standby', '--lease-duration-seconds', '3', '--devnode', 'true'],
        ...['--metrics-listen', '127.0.0.1:0', '--log-level', 'info'],
      ],
      join(logDir, 'operator-standby.log'),
    );
    let url = '';
    await eventually(
      async () => {
        url = /"url":"(http:[^"]+\/metrics)"/.exec(await log())?.[1] ?? '';
        return url !== '';
      },
      { timeoutMs: 30_000, describe: () => 'the operator logging where it serves /metrics' },
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await log()}`);
    });

    const scrape = async () => {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      return res.text();
    };
    const waiting = await scrape();
    expect(waiting).toMatch(/^svc_operator_leader 0$/m);
    expect(waiting).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(waiting).not.toMatch(/^svc_sandboxes\{/m);
    expect(await log()).not.toContain('became leader');
    const held = (await ns.custom.getNamespacedCustomObject({ ...lease, namespace: ns.name })) as {
      spec: { holderIdentity: string };
    };
    expect(held.spec.holderIdentity).toBe('other');

    // The other replica goes away with its Lease: this one takes over and says so.
    await ns.custom.deleteNamespacedCustomObject({ ...lease, namespace: ns.name });
    let text = '';
    await eventually(
      async () => {
        text = await scrape();
        return /^svc_operator_leader 1$/m.test(text) && /^svc_sandboxes\{phase="Running"\} 0$/m.test(text);
      },
      { timeoutMs: 30_000, describe: () => `svc_operator_leader 1:\n${text}` },
    );
    expect(text).toMatch(/^svc_workqueue_depth\{controller="sandbox"\} 0$/m);
  }, 60_000);
});
