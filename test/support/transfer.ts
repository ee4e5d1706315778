import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { request, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { type RunningSvc, startSvc, type SvcOptions } from '../../stack/index.ts';

/** An answer read to its end: status, headers, body. */
export interface RawAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/**
 * One request over node:http with the path sent exactly as given (fetch would resolve `..`
 * before sending it) and the body streamed from `body`.
 */
export function rawRequest(
  base: string,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: Buffer | Readable } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const req = request({
      host: url.hostname,
      port: url.port,
      method,
      path,
      agent: false,
      headers: {
        ...(Buffer.isBuffer(opts.body) ? { 'content-length': String(opts.body.length) } : {}),
        ...opts.headers,
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    if (opts.body === undefined) req.end();
    else if (Buffer.isBuffer(opts.body)) req.end(opts.body);
    else opts.body.pipe(req);
  });
}

/**
 * `size` bytes of a reproducible pattern, produced a MiB at a time (never held whole), and
 * the sha256 of what was produced once it has all been read.
 */
export function patternStream(size: number): { stream: Readable; sha256: () => string } {
  const hash = createHash('sha256');
  const block = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < block.length; i++) block[i] = (i * 131 + 7) % 253;
  let sent = 0;
  let n = 0;
  const stream = new Readable({
    read() {
      if (sent >= size) return void this.push(null);
      const chunk = Buffer.from(block.subarray(0, Math.min(block.length, size - sent)));
      if (chunk.length >= 4) chunk.writeUInt32BE(n++, 0); // every MiB differs
      sent += chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
  return { stream, sha256: () => hash.digest('hex') };
}

/** Downloads `path`, hashing as it arrives: status, size and sha256, nothing kept. */
export function hashedDownload(
  base: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; size: number; sha256: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const req = request({ host: url.hostname, port: url.port, path, headers, agent: false });
    req.on('response', (res) => {
      const hash = createHash('sha256');
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        hash.update(c);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, size, sha256: hash.digest('hex') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** A process's resident memory in MiB, from /proc. */
export async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** The peak growth of each process's resident memory (MiB over its start) while `work` runs. */
export async function peakGrowth<T>(
  pids: Record<string, number>,
  work: () => Promise<T>,
): Promise<{ growth: Record<string, number>; result: T }> {
  const base: Record<string, number> = {};
  const peak: Record<string, number> = {};
  for (const [name, pid] of Object.entries(pids)) base[name] = peak[name] = await rssMiB(pid);
  let running = true;
  const sample = async () => {
    for (const [name, pid] of Object.entries(pids)) peak[name] = Math.max(peak[name]!, await rssMiB(pid));
  };
  const sampler = (async () => {
    while (running) {
      await sample();
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  try {
    const result = await work();
    return {
      result,
      growth: Object.fromEntries(Object.keys(pids).map((n) => [n, Math.round(peak[n]! - base[n]!)])),
    };
  } finally {
    running = false;
    await sampler;
  }
}

/**
 * A real `svc api` process on 127.0.0.1 for the test's namespace, with dev auth (its memory
 * can be measured on its own). `args` come after these and override them.
 */
export function startApiProcess(
  kubeconfig: string,
  namespace: string,
  args: string[] = [],
  opts: SvcOptions = {},
): Promise<RunningSvc> {
  return startSvc(
    [
      'api',
      ...['--listen', '127.0.0.1:0', '--kubeconfig', kubeconfig],
      ...['--service-namespace', namespace, '--default-namespace', namespace],
      ...['--auth.devAuth', 'true', '--log-level', 'warn', '--devnode', 'true'],
      ...args,
    ],
    opts,
  );
}

/** A tar entry for `tarOf`. */
export interface TarEntry {
  name: string;
  type?: 'file' | 'dir' | 'symlink';
  body?: string;
  link?: string;
  mode?: number;
}

/**
 * A ustar archive of `entries`, written here byte by byte so that a test can make the
 * archives an honest tool refuses to make (`../evil`, `/etc/evil`, links out).
 */
export function tarOf(entries: TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const body = Buffer.from(e.body ?? '');
    const h = Buffer.alloc(512);
    const put = (text: string, at: number, len: number) => h.write(text, at, len, 'utf8');
    const octal = (n: number, at: number, len: number) =>
      put(`${n.toString(8).padStart(len - 1, '0')}\0`, at, len);
    put(e.name, 0, 100);
    octal(e.mode ?? (e.type === 'dir' ? 0o755 : 0o644), 100, 8);
    octal(0, 108, 8);
    octal(0, 116, 8);
    octal(e.type === 'file' || e.type === undefined ? body.length : 0, 124, 12);
    octal(1_700_000_000, 136, 12);
    put(' '.repeat(8), 148, 8);
    put({ file: '0', dir: '5', symlink: '2' }[e.type ?? 'file'], 156, 1);
    put(e.link ?? '', 157, 100);
    put('ustar\0', 257, 6);
    put('00', 263, 2);
    let sum = 0;
    for (const b of h) sum += b;
    put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
    blocks.push(h);
    if (e.type === 'file' || e.type === undefined) {
      blocks.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
    }
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}
