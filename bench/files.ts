// make bench-files: a 256 MiB file up to a code sandbox and back down through the whole stack
// (HTTP API → sandboxd in a devnode Pod → the workspace volume), against the same bytes over
// plain HTTP straight to sandboxd (the fair baseline for an HTTP API: what the API adds is the
// difference) and `cp` of the same file on the same disk, side by side in the same rounds.
// The control plane, devnode, the operator and the API run as they do under `make dev`: each
// an `svc` process of its own (hack/dev.ts's way).
import { spawn } from 'node:child_process';
import { createHash, randomFillSync } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, readFile, rm, stat } from 'node:fs/promises';
import { request, type IncomingMessage, type RequestOptions } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { SvcClient } from '../clients/typescript/index.ts';
import { GROUP, SandboxPod, VERSION } from '../core/index.ts';
import { SandboxdKeySecret, SandboxdLocator } from '../kube/index.ts';
import { eventually } from '../stack/index.ts';
import { script, startRealCluster } from './real.ts';
import { SERVICE_NAMESPACE, startStack } from './stack.ts';
import { createBenchTemplate, median, round } from './support.ts';

const MiB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_MIB ?? 256) * MiB;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const NAMESPACE = 'bench';
const TEMPLATE = 'bench-files';
const SANDBOX = 'files';
const root = join(import.meta.dirname, '..');

/** Where a request goes: the API's URL with its key, or sandboxd's socket with its token. */
interface Target {
  options: (path: string) => RequestOptions;
  path: string;
}

/** Where the bench runs: the API, the namespace, a folder on the volumes' disk, sandboxd straight. */
interface Where {
  cluster: 'devnode' | 'real';
  base: string;
  key: string;
  namespace: string;
  dir: string;
  template(): Promise<void>;
  /** sandboxd of the bench's sandbox, straight (once it runs), as the API reaches it. */
  direct(path: string): Promise<Target>;
  close(failed: boolean): Promise<void>;
}

async function devnode(): Promise<Where> {
  const stack = await startStack(NAMESPACE);
  return {
    cluster: 'devnode',
    base: stack.base,
    key: stack.key,
    namespace: NAMESPACE,
    dir: stack.dir,
    template: () => createBenchTemplate(stack.kc, TEMPLATE, { storage: { size: '4Gi' } }),
    direct: (path) => directTarget(stack.kc, path),
    close: (failed) => stack.close(failed),
  };
}

/**
 * A real cluster (bench/real.ts): the API through install.sh's forwarder, and sandboxd through
 * a forwarder of the same kind (hack/cluster/forward.sh: socat on 127.0.0.1, nsenter into the
 * Pod's node) to the Pod's address, so both ways cross one forwarder and differ by the API.
 */
async function real(): Promise<Where> {
  const cluster = await startRealCluster(Number(process.env.NODES ?? 1));
  const { kc, env } = cluster;
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-files-'));
  const forwarder = `bench-files-${process.pid}`;
  const client = new SvcClient({ baseUrl: env.baseUrl, apiKey: env.keys.admin, namespace: env.namespace });
  cluster.beforeClose(async () => {
    const pid = await readFile(join(cluster.state, 'pids', `forward-${forwarder}`), 'utf8').catch(() => '');
    if (pid.trim()) {
      try {
        process.kill(Number(pid), 'SIGTERM');
      } catch {
        // gone already
      }
    }
    for (const f of [
      join(cluster.state, 'pids', `forward-${forwarder}`),
      join(cluster.state, `forward-${forwarder}.port`),
    ])
      await rm(f, { force: true });
    await client.deleteSandbox(SANDBOX).catch(() => undefined);
    await eventually(
      async () =>
        (await client.getSandbox(SANDBOX).then(
          () => false,
          () => true,
        )) &&
        (
          await kc
            .makeApiClient(CoreV1Api)
            .listNamespacedPod({ namespace: env.namespace, labelSelector: `svc.io/sandbox=${SANDBOX}` })
        ).items.length === 0,
      { timeoutMs: 180_000, intervalMs: 500, describe: () => `sandbox ${SANDBOX} gone` },
    ).catch((err: Error) => console.error(err.message));
    await kc
      .makeApiClient(CustomObjectsApi)
      .deleteClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: 'clustersandboxtemplates',
        name: TEMPLATE,
      })
      .catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });
  return {
    cluster: 'real',
    base: env.baseUrl,
    key: env.keys.admin,
    namespace: env.namespace,
    dir,
    template: () =>
      createBenchTemplate(kc, TEMPLATE, {
        image: 'docker.io/library/debian:bookworm',
        storage: { size: '4Gi' },
      }),
    direct: async (path) => {
      const core = kc.makeApiClient(CoreV1Api);
      const pod = (
        await core.listNamespacedPod({ namespace: env.namespace, labelSelector: `svc.io/sandbox=${SANDBOX}` })
      ).items[0];
      const ip = pod?.status?.podIP;
      const node = pod?.spec?.nodeName;
      const secret = pod?.spec?.volumes?.find((v) => v.name === 'svc-token')?.secret?.secretName;
      if (!ip || !node || !secret)
        throw new Error(`no address, node or token Secret for ${SANDBOX}: ${pod?.metadata?.name}`);
      const token = Buffer.from(
        (await core.readNamespacedSecret({ namespace: env.namespace, name: secret })).data![
          SandboxPod.tokenKey
        ]!,
        'base64',
      ).toString();
      const port = Number(
        (
          await script([
            join(root, 'hack/cluster/forward.sh'),
            cluster.state,
            forwarder,
            `svcc-${cluster.run}-${node}`,
            `${ip}:${SandboxPod.port}`,
          ])
        ).trim(),
      );
      return {
        options: (p) => ({ host: '127.0.0.1', port, path: p, headers: { authorization: `Bearer ${token}` } }),
        path,
      };
    },
    close: () => cluster.close(),
  };
}

async function main(): Promise<void> {
  const where = process.env.CLUSTER === 'real' ? await real() : await devnode();
  let failed = false;
  try {
    const { base, key, dir, namespace } = where;
    await where.template();
    const send = (method: string, path: string, body?: string) =>
      new Promise<IncomingMessage>((resolve, reject) => {
        const req = request(`${base}${path}`, {
          method,
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
        });
        req.on('response', resolve).on('error', reject);
        req.end(body);
      });
    const made = await drain(
      await send(
        'POST',
        `/api/v1/sandboxes?namespace=${namespace}`,
        JSON.stringify({ name: SANDBOX, mode: 'code', templateRef: { name: TEMPLATE } }),
      ),
    );
    if (made.status !== 201) throw new Error(`create answered ${made.status}: ${made.text}`);
    let phase: string | undefined;
    await eventually(
      async () => {
        const got = await drain(await send('GET', `/api/v1/sandboxes/${SANDBOX}?namespace=${namespace}`));
        phase = (JSON.parse(got.text) as { status?: { phase?: string } }).status?.phase;
        return phase === 'Running';
      },
      { timeoutMs: 300_000, intervalMs: 100, describe: () => `sandbox ${SANDBOX} Running (phase ${phase})` },
    );

    // The two ways in: through the API, and straight to sandboxd as the API itself reaches it
    // (with the sandbox's token), with the same client code either way.
    const api: Target = {
      options: (path) => ({ ...urlOptions(base), path, headers: { 'x-api-key': key } }),
      path: `/api/v1/sandboxes/${SANDBOX}/files/workspace/big.bin?namespace=${namespace}`,
    };
    const direct = await where.direct('/fs?path=%2Fworkspace%2Fdirect.bin');

    // The source: random bytes (nothing compresses or dedupes them), on the disk devnode's
    // volumes live on.
    const source = join(dir, 'source.bin');
    const sha = await writeRandom(source, SIZE);
    const rates: Record<'up' | 'down' | 'directUp' | 'directDown' | 'cp', number[]> = {
      up: [],
      down: [],
      directUp: [],
      directDown: [],
      cp: [],
    };
    const timed = async (what: keyof typeof rates, round_: number, work: () => Promise<void>) => {
      await run('sync', []);
      const t = performance.now();
      await work();
      // Round 0 warms up (the API's first transfer compiles its code): not counted.
      if (round_ > 0) rates[what].push(SIZE / MiB / ((performance.now() - t) / 1000));
    };
    const target = join(dir, 'down.bin');
    const loads: string[] = [];
    for (let round_ = 0; round_ <= ROUNDS; round_++) {
      loads.push(loadavg()[0]!.toFixed(2));
      // Side by side, alternating which goes first, so a busy moment of the machine falls
      // on both.
      const ways = round_ % 2 === 0 ? [api, direct] : [direct, api];
      for (const way of ways) {
        await timed(way === api ? 'up' : 'directUp', round_, async () => {
          const put = await upload(way, source);
          if (put.status !== 200 && put.status !== 201)
            throw new Error(`upload answered ${put.status}: ${put.text}`);
          if ((JSON.parse(put.text) as { sha256: string }).sha256 !== sha)
            throw new Error('upload checksum differs');
        });
      }
      for (const way of ways) {
        await timed(way === api ? 'down' : 'directDown', round_, async () => {
          if ((await download(way, target)) !== sha) throw new Error('download checksum differs');
        });
        await rm(target);
      }
      const copy = join(dir, 'copy.bin');
      await timed('cp', round_, () => run('cp', [source, copy]));
      await rm(copy);
    }
    const m = Object.fromEntries(Object.entries(rates).map(([k, xs]) => [k, median(xs)])) as Record<
      keyof typeof rates,
      number
    >;
    const row = (name: string, xs: number[]) =>
      console.log(
        `${name.padEnd(36)}${xs.map((x) => x.toFixed(0)).join(' / ')} MiB/s  (median ${median(xs).toFixed(0)})`,
      );
    console.log(
      `${SIZE / MiB} MiB of random bytes, ${ROUNDS} rounds after a warm-up; load average (1 min) at each round's start: ${loads.join(', ')}`,
    );
    row('upload (PUT through the API)', rates.up);
    row('upload (PUT straight to sandboxd)', rates.directUp);
    row('download (GET through the API)', rates.down);
    row('download (GET straight to sandboxd)', rates.directDown);
    row('cp on the same disk', rates.cp);
    console.log(
      JSON.stringify({
        bench: 'files',
        cluster: where.cluster,
        upload_mb_s: round(m.up, 1),
        download_mb_s: round(m.down, 1),
        direct_upload_mb_s: round(m.directUp, 1),
        direct_download_mb_s: round(m.directDown, 1),
        cp_mb_s: round(m.cp, 1),
        upload_vs_direct: round(m.up / m.directUp, 3),
        download_vs_direct: round(m.down / m.directDown, 3),
        upload_ratio: round(m.up / m.cp, 3),
        download_ratio: round(m.down / m.cp, 3),
      }),
    );
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    await where.close(failed);
  }
}

function urlOptions(base: string): RequestOptions {
  const url = new URL(base);
  return { host: url.hostname, port: Number(url.port) };
}

/** sandboxd of the bench's sandbox, at the address devnode recorded on its Pod, with its token. */
async function directTarget(kc: KubeConfig, path: string): Promise<Target> {
  const locator = new SandboxdLocator({
    kc,
    key: new SandboxdKeySecret({ kc, namespace: SERVICE_NAMESPACE }).read,
    devnode: true,
  });
  const pods = await kc.makeApiClient(CoreV1Api).listNamespacedPod({
    namespace: NAMESPACE,
    labelSelector: `svc.io/sandbox=${SANDBOX}`,
  });
  const pod = pods.items[0];
  const address = pod ? locator.addressOf(pod) : undefined;
  const uid = pod?.metadata?.ownerReferences?.find((o) => o.controller)?.uid;
  if (!address || !uid) throw new Error(`no sandboxd address for ${SANDBOX}: ${pod?.metadata?.name}`);
  const token = await locator.token(NAMESPACE, SANDBOX, uid);
  const to: RequestOptions = address.startsWith('unix:')
    ? { socketPath: address.slice(5) }
    : {
        host: address.slice(0, address.lastIndexOf(':')),
        port: Number(address.slice(address.lastIndexOf(':') + 1)),
      };
  return { options: (p) => ({ ...to, path: p, headers: { authorization: `Bearer ${token}` } }), path };
}

async function drain(res: IncomingMessage): Promise<{ status: number; text: string }> {
  const chunks: Buffer[] = [];
  for await (const c of res as AsyncIterable<Buffer>) chunks.push(c);
  return { status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() };
}

async function writeRandom(path: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  const f = await open(path, 'w');
  try {
    const block = Buffer.alloc(4 * MiB);
    for (let at = 0; at < size; at += block.length) {
      randomFillSync(block);
      const part = block.subarray(0, Math.min(block.length, size - at));
      hash.update(part);
      await f.write(part);
    }
  } finally {
    await f.close();
  }
  return hash.digest('hex');
}

/** PUTs the file, streamed from disk; the answer once the server has answered. */
async function upload(to: Target, path: string): Promise<{ status: number; text: string }> {
  const size = (await stat(path)).size;
  const options = to.options(to.path);
  return new Promise((resolve, reject) => {
    const req = request({
      ...options,
      method: 'PUT',
      headers: {
        ...options.headers,
        'content-type': 'application/octet-stream',
        'content-length': String(size),
      },
    });
    req.on('response', (res) => void drain(res).then(resolve, reject));
    req.on('error', reject);
    createReadStream(path, { highWaterMark: MiB }).pipe(req);
  });
}

/** GETs the file into `path` (on disk, as a client saving it would); its sha256. */
async function download(from: Target, path: string): Promise<string> {
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    request(from.options(from.path), resolve).on('error', reject).end();
  });
  if (res.statusCode !== 200)
    throw new Error(`download answered ${res.statusCode}: ${(await drain(res)).text}`);
  const hash = createHash('sha256');
  res.on('data', (c: Buffer) => hash.update(c));
  await pipeline(res, createWriteStream(path));
  return hash.digest('hex');
}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited ${code}`))));
  });
}

await main();
