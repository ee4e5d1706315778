// make bench-files: a 256 MiB file up to a code sandbox and back down through the whole stack
// (HTTP API → sandboxd in a devnode Pod → the workspace volume), against `cp` of the same
// file on the same disk, in the same run. The control plane, devnode, the operator and the
// API run as they do under `make dev`: each an `svc` process of its own (hack/dev.ts's way).
import { spawn } from 'node:child_process';
import { createHash, randomFillSync } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, rm, stat } from 'node:fs/promises';
import { request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { waitFor } from '../test/controlplane/index.ts';
import { startStack } from './stack.ts';
import { createBenchTemplate, median, round } from './support.ts';

const MiB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_MIB ?? 256) * MiB;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const NAMESPACE = 'bench';
const TEMPLATE = 'bench-files';
const SANDBOX = 'files';

async function main(): Promise<void> {
  const stack = await startStack(NAMESPACE);
  let failed = false;
  try {
    const { base, key, dir } = stack;
    await createBenchTemplate(stack.kc, TEMPLATE, { storage: { size: '4Gi' } });
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
        `/api/v1/sandboxes?namespace=${NAMESPACE}`,
        JSON.stringify({ name: SANDBOX, mode: 'code', templateRef: { name: TEMPLATE } }),
      ),
    );
    if (made.status !== 201) throw new Error(`create answered ${made.status}: ${made.text}`);
    let phase: string | undefined;
    await waitFor(
      async () => {
        const got = await drain(await send('GET', `/api/v1/sandboxes/${SANDBOX}?namespace=${NAMESPACE}`));
        phase = (JSON.parse(got.text) as { status?: { phase?: string } }).status?.phase;
        return phase === 'Running';
      },
      { timeoutMs: 120_000, intervalMs: 100, describe: () => `sandbox ${SANDBOX} Running (phase ${phase})` },
    );

    // The source: random bytes (nothing compresses or dedupes them), on the disk devnode's
    // volumes live on.
    const source = join(dir, 'source.bin');
    const sha = await writeRandom(source, SIZE);
    const fileUrl = `${base}/api/v1/sandboxes/${SANDBOX}/files/workspace/big.bin?namespace=${NAMESPACE}`;
    const up: number[] = [];
    const down: number[] = [];
    const cp: number[] = [];
    for (let round_ = 0; round_ <= ROUNDS; round_++) {
      await run('sync', []);
      let t = performance.now();
      const put = await upload(fileUrl, key, source);
      const upMs = performance.now() - t;
      if (put.status !== 200 && put.status !== 201)
        throw new Error(`upload answered ${put.status}: ${put.text}`);
      if ((JSON.parse(put.text) as { sha256: string }).sha256 !== sha)
        throw new Error('upload checksum differs');

      await run('sync', []);
      const target = join(dir, 'down.bin');
      t = performance.now();
      const got = await download(fileUrl, key, target);
      const downMs = performance.now() - t;
      if (got !== sha) throw new Error('download checksum differs');

      await run('sync', []);
      const copy = join(dir, 'copy.bin');
      t = performance.now();
      await run('cp', [source, copy]);
      const cpMs = performance.now() - t;
      await rm(copy);
      await rm(target);
      // Round 0 warms up (the API's first transfer compiles its code): not counted.
      if (round_ === 0) continue;
      up.push(SIZE / MiB / (upMs / 1000));
      down.push(SIZE / MiB / (downMs / 1000));
      cp.push(SIZE / MiB / (cpMs / 1000));
    }
    const [u, d, c] = [median(up), median(down), median(cp)];
    const row = (name: string, xs: number[]) =>
      console.log(
        `${name.padEnd(28)}${xs.map((x) => x.toFixed(0)).join(' / ')} MiB/s  (median ${median(xs).toFixed(0)})`,
      );
    console.log(`${SIZE / MiB} MiB of random bytes, ${ROUNDS} rounds after a warm-up`);
    row('upload (PUT through the API)', up);
    row('download (GET through API)', down);
    row('cp on the same disk', cp);
    console.log(
      JSON.stringify({
        bench: 'files',
        upload_mb_s: round(u, 1),
        download_mb_s: round(d, 1),
        cp_mb_s: round(c, 1),
        upload_ratio: round(u / c, 3),
        download_ratio: round(d / c, 3),
      }),
    );
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    await stack.close(failed);
  }
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

/** PUTs the file, streamed from disk; the answer once the API has answered. */
async function upload(url: string, key: string, path: string): Promise<{ status: number; text: string }> {
  const size = (await stat(path)).size;
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'PUT',
      headers: {
        'x-api-key': key,
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
async function download(url: string, key: string, path: string): Promise<string> {
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    request(url, { headers: { 'x-api-key': key } }, resolve)
      .on('error', reject)
      .end();
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
