import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { chmod, mkdir, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { CONFIGURE_LIMITS, FileManifest, checkConfigureLimits } from '../core/index.ts';
import { resolveInside } from './paths.ts';

export class FilesRefused extends Error {
  readonly details: string[];
  constructor(message: string, details: string[] = []) {
    super(message);
    this.name = 'FilesRefused';
    this.details = details;
  }
}

const MAX_MANIFEST_BYTES = 1024 * 1024;

/**
 * Writes a batch of files atomically from a stream framed as one JSON manifest line
 * followed by the files' bytes back to back. Everything is checked (limits, every path)
 * before a byte is written; each file goes to a temporary sibling and all are renamed into
 * place only when all arrived, so a failure leaves nothing behind. Memory stays at one
 * chunk: bytes stream to disk.
 */
export async function writeFiles(root: string, body: Readable): Promise<{ written: string[] }> {
  const reader = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let pending: Buffer = Buffer.alloc(0);
  let manifestLine: Buffer | undefined;
  while (!manifestLine) {
    const next = await reader.next();
    if (next.done) throw new FilesRefused('the body ended before the manifest line');
    pending = Buffer.concat([pending, next.value]);
    const nl = pending.indexOf(10);
    if (nl >= 0) {
      manifestLine = pending.subarray(0, nl);
      pending = pending.subarray(nl + 1);
    } else if (pending.length > MAX_MANIFEST_BYTES) throw new FilesRefused('the manifest line is too long');
  }
  const parsed = FileManifest.safeParse(safeJson(manifestLine.toString('utf8')));
  if (!parsed.success)
    throw new FilesRefused(`bad manifest: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const files = parsed.data.files;
  const violations = checkConfigureLimits(files);
  if (violations.length > 0)
    throw new FilesRefused(
      violations.map((v) => v.message).join('; '),
      violations.map((v) => v.code),
    );
  const targets: string[] = [];
  for (const f of files) targets.push(await resolveInside(root, f.path));

  const temps: string[] = [];
  try {
    for (const [i, f] of files.entries()) {
      const target = targets[i]!;
      await mkdir(dirname(target), { recursive: true });
      const temp = join(dirname(target), `.svc-tmp-${randomBytes(6).toString('hex')}`);
      temps.push(temp);
      const out = createWriteStream(temp, { mode: f.mode ?? 0o644 });
      let remaining = f.size;
      while (remaining > 0) {
        if (pending.length === 0) {
          const next = await reader.next();
          if (next.done) throw new FilesRefused(`the body ended inside ${f.path}`);
          pending = next.value;
        }
        const take = pending.subarray(0, Math.min(remaining, pending.length));
        pending = pending.subarray(take.length);
        remaining -= take.length;
        if (!out.write(take)) await new Promise<void>((r) => out.once('drain', () => r()));
      }
      await new Promise<void>((resolve, reject) =>
        out.end((err?: Error | null) => (err ? reject(err) : resolve())),
      );
      if (f.mode !== undefined) await chmod(temp, f.mode);
    }
    if (pending.length > 0 || !(await reader.next()).done)
      throw new FilesRefused('the body is longer than the manifest says');
    for (const [i, temp] of temps.entries()) await rename(temp, targets[i]!);
    return { written: targets };
  } catch (err) {
    await Promise.all(temps.map((t) => unlink(t).catch(() => undefined)));
    throw err;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export { CONFIGURE_LIMITS };
