// cp: files and folders between this machine and a sandbox. A file is one streamed PUT or
// GET of /files/{path}; a folder travels as one tar (gzip on the way up) through /archive,
// packed and unpacked here by node-tar. Nothing is held in memory whole.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { basename, join, posix } from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createGzip } from 'node:zlib';
import type { SvcClient } from '../../clients/typescript/index.ts';
import { CliError, ExitCode } from '../errors.ts';
import type { Invocation } from '../main.ts';
import { openSession } from '../session.ts';
import { progressBar, type Progress } from '../spinner.ts';

/** `NAME:/abs/path` names a sandbox's path; anything else is a local path. */
export function remoteOf(arg: string): { sandbox: string; path: string } | undefined {
  const m = /^([a-z0-9](?:[-a-z0-9.]*[a-z0-9])?):(\/.*)$/.exec(arg);
  return m ? { sandbox: m[1]!, path: m[2]! } : undefined;
}

/** Counts the bytes that pass, for the progress bar. */
function counting(progress: Progress): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
      progress.add(chunk.length);
      done(null, chunk);
    },
  });
}

async function isDir(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

export async function cp(inv: Invocation<{ progress: boolean }>): Promise<number> {
  const [src, dst] = inv.args as [string, string];
  const from = remoteOf(src);
  const to = remoteOf(dst);
  if ((from === undefined) === (to === undefined)) {
    throw new CliError(
      'one side of cp is a sandbox (NAME:/workspace/path), the other a local path',
      ExitCode.usage,
    );
  }
  const { client } = await openSession(inv.globals);
  const show = inv.opts.progress !== false;
  if (to) return upload(client, src, to.sandbox, to.path, show);
  return download(client, from!.sandbox, from!.path, dst, show);
}

async function upload(
  client: SvcClient,
  local: string,
  sandbox: string,
  remote: string,
  show: boolean,
): Promise<number> {
  const info = await stat(local).catch(() => {
    throw new CliError(`${local} does not exist`, ExitCode.usage);
  });
  // A destination ending in / is a folder to copy into; otherwise it is the new name.
  const target = remote.endsWith('/') ? posix.join(remote, basename(local)) : remote;
  if (!info.isDirectory()) {
    const progress = progressBar(`${basename(local)}`, info.size, show);
    const body = Readable.toWeb(
      createReadStream(local).pipe(counting(progress)),
    ) as ReadableStream<Uint8Array>;
    const r = await client.writeFile(sandbox, target, body, {
      mode: (info.mode & 0o777).toString(8).padStart(4, '0'),
    });
    progress.done();
    process.stderr.write(`${local} -> ${sandbox}:${r.path} (${r.size} bytes)\n`);
    return ExitCode.ok;
  }
  const tar = await import('tar');
  const entries = await readdir(local);
  const total = await treeSize(local);
  const progress = progressBar(basename(local), total, show);
  // portable: no uid, gid or user names (the sandbox's user owns what it unpacks).
  const packed = tar.c(
    { cwd: local, portable: true },
    entries.length > 0 ? entries : [],
  ) as unknown as Readable;
  const body = Readable.toWeb(
    packed.pipe(counting(progress)).pipe(createGzip({ level: 1 })),
  ) as ReadableStream<Uint8Array>;
  const r = await client.uploadArchive(sandbox, target, body);
  progress.done();
  process.stderr.write(`${local}/ -> ${sandbox}:${target} (${r.files} files, ${r.bytes} bytes)\n`);
  return ExitCode.ok;
}

/** The bytes a tar of `dir` holds, roughly (contents rounded to blocks, one header each). */
async function treeSize(dir: string): Promise<number> {
  let total = 1024;
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    total += 512;
    if (e.isFile()) total += Math.ceil((await stat(join(e.parentPath, e.name))).size / 512) * 512;
  }
  return total;
}

async function download(
  client: SvcClient,
  sandbox: string,
  remote: string,
  local: string,
  show: boolean,
): Promise<number> {
  const res = await client.readFile(sandbox, remote);
  const name = posix.basename(remote.replace(/\/+$/, '')) || 'workspace';
  // Into an existing folder (or one named with a trailing /), else as the new name.
  const into = local.endsWith('/') || (await isDir(local));
  const target = into ? join(local, name) : local;
  if ((res.headers.get('content-type') ?? '').includes('application/json')) {
    // A folder: its listing came back; the contents come as a tar.
    await res.body?.cancel();
    const archive = await client.downloadArchive(sandbox, remote, { format: 'tar' });
    const tar = await import('tar');
    await mkdir(target, { recursive: true });
    const progress = progressBar(name, Number(archive.headers.get('content-length')) || undefined, show);
    await pipeline(
      Readable.fromWeb(archive.body as WebReadableStream),
      counting(progress),
      tar.x({ cwd: target }) as unknown as NodeJS.WritableStream,
    );
    progress.done();
    process.stderr.write(`${sandbox}:${remote} -> ${target}/\n`);
    return ExitCode.ok;
  }
  const size = Number(res.headers.get('content-length')) || undefined;
  const progress = progressBar(name, size, show);
  await pipeline(
    Readable.fromWeb(res.body as WebReadableStream),
    counting(progress),
    createWriteStream(target),
  );
  progress.done();
  process.stderr.write(`${sandbox}:${remote} -> ${target}\n`);
  return ExitCode.ok;
}
