import type { Readable } from 'node:stream';

/**
 * bwrap's `--info-fd` JSON: the host pid of the container's pid 1. The pipe is read to its
 * end, not closed once the pid is in: bwrap writes the JSON in several writes (the pid
 * first, then the namespaces and the closing brace), and a write to a closed pipe kills it
 * with SIGPIPE, so the container would "exit" at once and restart a back-off (1 s) later.
 */
export function readChildPid(info: Readable | null): Promise<number> {
  if (!info) return Promise.reject(new Error('no info fd'));
  return new Promise<number>((resolve, reject) => {
    let text = '';
    info.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const m = /"child-pid":\s*(\d+)/.exec(text);
      if (m) resolve(Number(m[1]));
    });
    info.once('end', () => reject(new Error('bwrap reported no child pid')));
    info.once('error', reject);
  });
}
