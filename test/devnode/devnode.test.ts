// devnode against the real control plane: Pods written by hand (no operator) run as
// bubblewrap process trees with their claims, Services reach them, snapshots copy them.
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, test } from 'vitest';
import { Annotations, SandboxPod } from '../../core/index.ts';
import { SandboxdClient } from '../../kube/index.ts';
import { eventually } from '../../stack/index.ts';
import {
  createClaim as createSnapshotClaim,
  deleteSnapshot,
  readSnapshot,
  snapshotClaim,
  useDevnode,
  useNamespace,
} from '../support/index.ts';

const ns = useNamespace('devnode');
const node = useDevnode(ns);
const TOKEN = 'devnode-test-token';

/** A Pod as the operator would write it, by hand: sandboxd installed by init container, then run. */
function sandboxdPod(name: string, claim: string, command: string[] = []): V1Pod {
  return {
    metadata: { name, labels: { app: name } },
    spec: {
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 5,
      initContainers: [
        {
          name: SandboxPod.installContainer,
          image: 'svc',
          command: ['cp', '/usr/local/bin/sandboxd', '/opt/svc/sandboxd'],
          volumeMounts: [{ name: 'bin', mountPath: '/opt/svc' }],
        },
      ],
      containers: [
        {
          name: 'sandbox',
          image: 'debian',
          command: ['/opt/svc/sandboxd', ...(command.length ? ['--', ...command] : [])],
          workingDir: '/workspace',
          env: [
            { name: 'SANDBOXD_LISTEN', value: '0.0.0.0:9000' },
            { name: 'SANDBOXD_TOKEN_FILE', value: '/var/run/svc/token' },
            { name: 'SECRET_VALUE', valueFrom: { secretKeyRef: { name: 'tok', key: 'other' } } },
          ],
          volumeMounts: [
            { name: 'workspace', mountPath: '/workspace' },
            { name: 'bin', mountPath: '/opt/svc', readOnly: true },
            { name: 'token', mountPath: '/var/run/svc', readOnly: true },
          ],
        },
      ],
      volumes: [
        { name: 'workspace', persistentVolumeClaim: { claimName: claim } },
        { name: 'bin', emptyDir: {} },
        { name: 'token', secret: { secretName: 'tok' } },
      ],
    },
  };
}

const createClaim = (name: string, snapshot?: string) => createSnapshotClaim(ns, name, snapshot);

/** Waits for the Pod to be Ready and returns a client of its sandboxd. */
async function ready(name: string): Promise<{ pod: V1Pod; sandboxd: SandboxdClient }> {
  let pod: V1Pod | undefined;
  await eventually(
    async () => {
      pod = await ns.core.readNamespacedPod({ name, namespace: ns.name });
      return (
        pod.status?.phase === 'Running' &&
        !!pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') &&
        !!pod.metadata?.annotations?.[Annotations.sandboxdAddress]
      );
    },
    { timeoutMs: 30_000, describe: () => `pod ${name} ready: ${JSON.stringify(pod?.status)}` },
  );
  const address = pod!.metadata!.annotations![Annotations.sandboxdAddress]!;
  return { pod: pod!, sandboxd: new SandboxdClient({ address, token: TOKEN }) };
}

async function sh(sandboxd: SandboxdClient, script: string): Promise<{ stdout: string; exitCode: number }> {
  const res = await sandboxd.run({
    runId: `r-${Math.random()}`,
    kind: 'exec',
    argv: ['sh', '-c', script],
    cwd: '/',
  });
  expect(res.status).toBe(200);
  let stdout = '';
  let exitCode = -999;
  for await (const e of res.events) {
    const data = JSON.parse(e.data) as { stream?: string; data?: string; exitCode?: number };
    if (e.event === 'log' && data.stream === 'stdout') stdout += data.data;
    if (e.event === 'exit') exitCode = data.exitCode!;
  }
  return { stdout, exitCode };
}

async function gone(what: string, read: () => Promise<unknown>) {
  await eventually(
    () =>
      read().then(
        () => false,
        () => true,
      ),
    { timeoutMs: 30_000, describe: () => `${what} gone` },
  );
}

async function deletePod(name: string) {
  await ns.core.deleteNamespacedPod({ name, namespace: ns.name });
  await eventually(
    () =>
      ns.core.readNamespacedPod({ name, namespace: ns.name }).then(
        () => false,
        () => true,
      ),
    { timeoutMs: 30_000, describe: () => `pod ${name} gone` },
  );
}

describe('devnode', () => {
  test('a hand-written Pod runs isolated, with its claim, secrets, and leaves nothing when deleted', async () => {
    await ns.core.createNamespacedSecret({
      namespace: ns.name,
      body: { metadata: { name: 'tok' }, stringData: { token: TOKEN, other: 's3cret' } },
    });
    await createClaim('ws');
    await ns.core.createNamespacedPod({ namespace: ns.name, body: sandboxdPod('p1', 'ws') });
    const { pod, sandboxd } = await ready('p1');
    expect(pod.spec?.nodeName).toBe(node.nodeName);
    expect(pod.status?.podIP).toMatch(/^10\.88\./);
    expect(pod.status?.containerStatuses?.[0]).toMatchObject({
      name: 'sandbox',
      ready: true,
      restartCount: 0,
    });

    expect((await sh(sandboxd, 'hostname')).stdout).toBe('p1\n');
    // Its own pid namespace: sandboxd is pid 1 and only the Pod's processes are visible.
    const ps = await sh(sandboxd, 'ps -e -o pid=,comm=');
    const pids = ps.stdout
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/));
    expect(pids[0]![0]).toBe('1');
    expect(pids.length).toBeLessThan(6);
    expect((await sh(sandboxd, 'echo "$SECRET_VALUE"')).stdout).toBe('s3cret\n');
    // The host's root is read-only underneath, the Pod's writes stay in its own layer.
    expect((await sh(sandboxd, 'touch /etc/devnode-test && echo ok')).stdout).toBe('ok\n');
    expect(existsSync('/etc/devnode-test')).toBe(false);

    // The host's loopback is not the Pod's.
    const host = createServer((_req, res) => res.end('host'));
    await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
    const port = (host.address() as { port: number }).port;
    try {
      const probe = await sh(sandboxd, `curl -s -m 2 http://127.0.0.1:${port}/ || echo unreachable`);
      expect(probe.stdout).toBe('unreachable\n');
    } finally {
      host.close();
    }

    // /workspace is the claim: it survives deleting and recreating the Pod.
    expect((await sh(sandboxd, 'echo kept > /workspace/note && echo ok')).stdout).toBe('ok\n');
    const pid = Number(pod.status!.containerStatuses![0]!.containerID!.replace('devnode://', ''));
    expect(existsSync(`/proc/${pid}`)).toBe(true);
    await deletePod('p1');
    expect(existsSync(`/proc/${pid}`)).toBe(false);
    // pgrep exits 1 when no process matches.
    const left = await promisify(execFile)('pgrep', ['-a', '-f', `${node.dataDir}/pods`]).then(
      (r) => r.stdout,
      () => '',
    );
    expect(left).toBe('');

    await ns.core.createNamespacedPod({ namespace: ns.name, body: sandboxdPod('p1', 'ws') });
    const again = await ready('p1');
    expect((await sh(again.sandboxd, 'cat /workspace/note')).stdout).toBe('kept\n');
    await deletePod('p1');
  }, 120_000);

  test('a Service reaches an HTTP server inside a Pod from the host', async () => {
    await createClaim('web');
    await ns.core.createNamespacedPod({
      namespace: ns.name,
      body: sandboxdPod('web', 'web', ['python3', '-m', 'http.server', '8080', '--bind', '127.0.0.1']),
    });
    const { sandboxd } = await ready('web');
    await sh(sandboxd, 'echo served > /workspace/index.txt');
    await ns.core.createNamespacedService({
      namespace: ns.name,
      body: {
        metadata: { name: 'web' },
        spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
      },
    });
    let address = '';
    await eventually(
      async () => {
        const s = await ns.core.readNamespacedService({ name: 'web', namespace: ns.name });
        address = s.metadata?.annotations?.[Annotations.hostAddress] ?? '';
        return address.startsWith('80=127.0.0.1:');
      },
      { timeoutMs: 10_000, describe: () => `service host address: ${address}` },
    );
    let body = '';
    await eventually(
      async () => {
        body = await (await fetch(`http://${address.slice(3)}/index.txt`)).text();
        return body === 'served\n';
      },
      { timeoutMs: 20_000, describe: () => `body through the Service: ${body}` },
    );
    await deletePod('web');
  }, 120_000);

  test('a snapshot and a claim hydrated from it are byte-identical', async () => {
    await createClaim('src');
    await ns.core.createNamespacedPod({ namespace: ns.name, body: sandboxdPod('writer', 'src') });
    const { sandboxd } = await ready('writer');
    const made = await sh(
      sandboxd,
      'mkdir -p /workspace/small && for i in $(seq 1000); do echo "file $i" > /workspace/small/$i; done && ' +
        'head -c 104857600 /dev/urandom > /workspace/big && echo done',
    );
    expect(made.stdout).toBe('done\n');
    const snap = await snapshotClaim(ns, 'snap', 'src');
    expect(snap.status?.restoreSize).toBe('1Gi');
    await createClaim('copy', 'snap');
    await ns.core.createNamespacedPod({ namespace: ns.name, body: sandboxdPod('reader', 'copy') });
    const reader = await ready('reader');
    const sum = 'cd /workspace && find . -type f | sort | xargs sha256sum | sha256sum';
    const [a, b] = await Promise.all([sh(sandboxd, sum), sh(reader.sandboxd, sum)]);
    expect(a.stdout).toMatch(/^[0-9a-f]{64} /);
    expect(b.stdout).toBe(a.stdout);
    // Deleting the snapshot leaves the hydrated claim whole.
    await deleteSnapshot(ns, 'snap');
    expect((await sh(reader.sandboxd, 'cat /workspace/small/7')).stdout).toBe('file 7\n');
    await Promise.all([deletePod('writer'), deletePod('reader')]);
  }, 180_000);

  test('deleting a snapshot never touches a claim cloned from it; its last clone takes the data along', async () => {
    await createClaim('base');
    await ns.core.createNamespacedPod({ namespace: ns.name, body: sandboxdPod('base', 'base') });
    const base = await ready('base');
    const made = await sh(
      base.sandboxd,
      'mkdir -p /workspace/small && for i in $(seq 100); do echo "file $i" > /workspace/small/$i; done && ' +
        'head -c 10485760 /dev/urandom > /workspace/big && echo done',
    );
    expect(made.stdout).toBe('done\n');
    const snap = await snapshotClaim(ns, 'snap-del', 'base');
    const content = snap.status!.boundVolumeSnapshotContentName!;
    await createClaim('clone', 'snap-del');
    await ns.core.createNamespacedPod({ namespace: ns.name, body: sandboxdPod('cloner', 'clone') });
    const cloner = await ready('cloner');
    const claim = await ns.core.readNamespacedPersistentVolumeClaim({ name: 'clone', namespace: ns.name });
    const pv = claim.spec!.volumeName!;
    const volume = `${node.dataDir}/volumes/${pv}`;
    const sum = 'cd /workspace && find . -type f ! -name mine | sort | xargs sha256sum | sha256sum';
    const original = (await sh(base.sandboxd, sum)).stdout;
    expect(original).toMatch(/^[0-9a-f]{64} /);
    expect((await sh(cloner.sandboxd, sum)).stdout).toBe(original);

    // Hydration copied nothing: the claim is an overlay over the snapshot's data, and what
    // the sandbox writes lands in the claim's own layer.
    expect(await readFile('/proc/mounts', 'utf8')).toContain(` ${volume} overlay `);
    expect((await sh(cloner.sandboxd, 'echo mine > /workspace/mine && echo ok')).stdout).toBe('ok\n');
    expect(await readFile(`${node.dataDir}/clones/${pv}/upper/mine`, 'utf8')).toBe('mine\n');
    expect(existsSync(`${node.dataDir}/snapshots/${content}/mine`)).toBe(false);

    // A snapshot of the clone is its merged view, standing alone.
    const ofClone = await snapshotClaim(ns, 'snap-of-clone', 'clone');
    const standalone = `${node.dataDir}/snapshots/${ofClone.status!.boundVolumeSnapshotContentName!}`;
    expect(await readFile(`${standalone}/mine`, 'utf8')).toBe('mine\n');
    expect(await readFile(`${standalone}/small/7`, 'utf8')).toBe('file 7\n');

    await deleteSnapshot(ns, 'snap-del');
    await gone('snapshot snap-del', () => readSnapshot(ns, 'snap-del'));
    expect(existsSync(`${node.dataDir}/snapshots/${content}`)).toBe(false);
    expect(existsSync(`${node.dataDir}/retained/${content}`)).toBe(true);
    expect((await sh(cloner.sandboxd, sum)).stdout).toBe(original);
    const appended = await sh(cloner.sandboxd, 'echo more >> /workspace/small/1 && cat /workspace/small/1');
    expect(appended.stdout).toBe('file 1\nmore\n');

    await deletePod('cloner');
    await ns.core.deleteNamespacedPersistentVolumeClaim({ name: 'clone', namespace: ns.name });
    await gone('claim clone', () =>
      ns.core.readNamespacedPersistentVolumeClaim({ name: 'clone', namespace: ns.name }),
    );
    expect(await readFile('/proc/mounts', 'utf8')).not.toContain(` ${volume} `);
    expect(existsSync(volume)).toBe(false);
    expect(existsSync(`${node.dataDir}/clones/${pv}`)).toBe(false);
    expect(existsSync(`${node.dataDir}/retained/${content}`)).toBe(false);
    await deleteSnapshot(ns, 'snap-of-clone');
    await deletePod('base');
  }, 180_000);
});
