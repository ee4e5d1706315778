// make bench-create and make bench-clone: the operator and devnode on the real control
// plane, each figure against a baseline measured in the same run.
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { V1Pod } from '@kubernetes/client-node';
import { GROUP, VERSION } from '../core/index.ts';
import { eventually } from '../stack/index.ts';
import { startInProcess } from './inprocess.ts';
import { Sight } from './sight.ts';
import { createBenchTemplate, median, percentile } from './support.ts';

const which = process.argv[2];
const { kc, core, custom, namespace, dataDir, close } = await startInProcess('devnode');
const sandboxes = { group: GROUP, version: VERSION, plural: 'sandboxes', namespace };
const phase = async (name: string) =>
  ((await custom.getNamespacedCustomObject({ ...sandboxes, name })) as { status?: { phase?: string } }).status
    ?.phase;
const untilRunning = (name: string) =>
  eventually(async () => (await phase(name)) === 'Running', {
    timeoutMs: 120_000,
    intervalMs: 20,
    describe: () => `${name} Running`,
  });

try {
  await createBenchTemplate(kc, 'bench', { storage: { size: '2Gi' } });
  if (which === 'create') await benchCreate();
  else if (which === 'clone') await benchClone();
  else throw new Error('usage: devnode.ts create|clone');
} finally {
  await close();
}

/**
 * create → Running for 20 sandboxes one after another (after one warm-up sandbox), and the
 * operator's own share of it, from watches of the Pods and Sandboxes: create → Pod created,
 * plus Pod ready → phase Running (0 when the operator saw sandboxd answer first).
 */
async function benchCreate() {
  const seen = new Map<string, { pod?: number; ready?: number; running?: number }>();
  const at = (name: string) => seen.get(name) ?? seen.set(name, {}).get(name)!;
  const watches = await Promise.all([
    Sight.open(kc, `/api/v1/namespaces/${namespace}/pods`, (_type: string, pod: V1Pod) => {
      const t = at(pod.metadata!.name!);
      t.pod ??= performance.now();
      if (pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
        t.ready ??= performance.now();
    }),
    Sight.open(
      kc,
      `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/sandboxes`,
      (_type: string, s: { metadata: { name: string }; status?: { phase?: string } }) => {
        if (s.status?.phase === 'Running') at(s.metadata.name).running ??= performance.now();
      },
    ),
  ]);
  const shares: number[] = [];
  const parts = { toPod: [] as number[], toRunning: [] as number[] };
  const create = async (name: string) => {
    const t0 = performance.now();
    await custom.createNamespacedCustomObject({
      ...sandboxes,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'Sandbox',
        metadata: { name },
        spec: { templateRef: { name: 'bench' } },
      },
    });
    await untilRunning(name);
    const total = performance.now() - t0;
    // The watches may deliver a moment after the poll saw Running.
    await eventually(
      () => {
        for (const w of watches) w.check();
        return Promise.resolve(seen.get(name)?.running !== undefined);
      },
      {
        timeoutMs: 10_000,
        intervalMs: 5,
        describe: () => `${name} Running in the watch`,
      },
    );
    const t = seen.get(name)!;
    const toPod = t.pod! - t0;
    const toRunning = t.ready === undefined ? 0 : Math.max(0, t.running! - t.ready);
    if (!name.startsWith('warmup')) {
      shares.push(toPod + toRunning);
      parts.toPod.push(toPod);
      parts.toRunning.push(toRunning);
    }
    return total;
  };
  await create('warmup');
  const times: number[] = [];
  for (let i = 0; i < 20; i++) times.push(await create(`s${i}`));
  for (const w of watches) w.stop();
  const p50 = median(times);
  const p95 = percentile(times, 95);
  const share = median(shares);
  console.log(
    `create → Running (20 sandboxes, one at a time): p50 ${p50.toFixed(0)} ms  p95 ${p95.toFixed(0)} ms`,
  );
  console.log(
    `the operator's share (create → Pod created, plus Pod ready → Running): p50 ${share.toFixed(0)} ms ` +
      `(p50 ${median(parts.toPod).toFixed(0)} ms + ${median(parts.toRunning).toFixed(0)} ms)`,
  );
  console.log(
    JSON.stringify({
      bench: 'create',
      p50_ms: Math.round(p50),
      p95_ms: Math.round(p95),
      operator_p50_ms: Math.round(share),
      n: times.length,
    }),
  );
}

/**
 * A 1 GiB workspace cloned by VolumeSnapshot + hydration, against `cp -a` of the same tree;
 * `BENCH_ROUNDS` (3) pairs, interleaved, each from a clean page cache writeback (`sync`).
 */
async function benchClone() {
  await custom.createNamespacedCustomObject({
    ...sandboxes,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'Sandbox',
      metadata: { name: 'src' },
      spec: { templateRef: { name: 'bench' } },
    },
  });
  await untilRunning('src');
  const claim = await core.readNamespacedPersistentVolumeClaim({ name: 'src-workspace', namespace });
  const dir = join(dataDir, 'volumes', claim.spec!.volumeName!);
  // 1 GiB: 16 files of 48 MiB and 4,096 files of 64 KiB, random bytes.
  await mkdir(join(dir, 'small'), { recursive: true });
  await promisify(execFile)('sh', [
    '-c',
    `for i in $(seq 16); do head -c 50331648 /dev/urandom > ${dir}/big$i; done`,
  ]);
  const chunk = Buffer.alloc(65536);
  for (let i = 0; i < 4096; i++) await writeFile(join(dir, 'small', String(i)), chunk.fill(i % 251));

  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const clones: { total: number; snapshot: number; hydration: string }[] = [];
  const cps: number[] = [];
  for (let i = 0; i < rounds; i++) {
    // Neither side pays for the other's gigabyte still waiting to be written back.
    await promisify(execFile)('sync');
    clones.push(await cloneOnce(`snap${i}`, `clone${i}`));
    await promisify(execFile)('sync');
    const t1 = performance.now();
    await promisify(execFile)('cp', ['-a', dir, join(dataDir, `cp-baseline${i}`)]);
    cps.push((performance.now() - t1) / 1000);
    console.log(
      `round ${i + 1}: snapshot + hydration → clone Running ${clones[i]!.total.toFixed(2)} s ` +
        `(snapshot ready after ${clones[i]!.snapshot.toFixed(2)} s, ${clones[i]!.hydration} hydration);  ` +
        `cp -a ${cps[i]!.toFixed(2)} s`,
    );
  }
  const total = median(clones.map((c) => c.total));
  const cp = median(cps);
  console.log(
    JSON.stringify({
      bench: 'clone',
      snapshot_restore_s: Number(total.toFixed(2)),
      cp_s: Number(cp.toFixed(2)),
      ratio: Number((total / cp).toFixed(2)),
      snapshot_s: Number(median(clones.map((c) => c.snapshot)).toFixed(2)),
      hydration: [...new Set(clones.map((c) => c.hydration))].join('+'),
      rounds,
    }),
  );
}

/** One VolumeSnapshot of `src` and one Sandbox cloned from it, timed until it runs. */
async function cloneOnce(snap: string, name: string) {
  const snapshotRef = {
    group: 'snapshot.storage.k8s.io',
    version: 'v1',
    namespace,
    plural: 'volumesnapshots',
  };
  const t0 = performance.now();
  await custom.createNamespacedCustomObject({
    ...snapshotRef,
    body: {
      apiVersion: 'snapshot.storage.k8s.io/v1',
      kind: 'VolumeSnapshot',
      metadata: { name: snap },
      spec: { source: { persistentVolumeClaimName: 'src-workspace' } },
    },
  });
  await custom.createNamespacedCustomObject({
    ...sandboxes,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'Sandbox',
      metadata: { name },
      spec: { templateRef: { name: 'bench' }, cloneFromSnapshot: snap },
    },
  });
  // When the snapshot alone was ready, to split the figure (polled beside the clone's wait).
  const snapshotReady = eventually(
    async () =>
      ((await custom.getNamespacedCustomObject({ ...snapshotRef, name: snap })) as ReadyToUse).status
        ?.readyToUse === true,
    { timeoutMs: 120_000, intervalMs: 20, describe: () => `${snap} ready` },
  ).then(
    () => (performance.now() - t0) / 1000,
    () => NaN,
  );
  await untilRunning(name);
  const total = (performance.now() - t0) / 1000;
  // Copy-on-write hydration leaves an overlay on the clone's folder; the fallback a plain copy.
  const claim = await core.readNamespacedPersistentVolumeClaim({ name: `${name}-workspace`, namespace });
  const mounts = await readFile('/proc/mounts', 'utf8');
  const overlay = mounts.includes(` ${join(dataDir, 'volumes', claim.spec!.volumeName!)} overlay `);
  return { total, snapshot: await snapshotReady, hydration: overlay ? 'overlay' : 'copy' };
}

interface ReadyToUse {
  status?: { readyToUse?: boolean };
}
