import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readChildPid } from './info-fd.ts';

describe('readChildPid', () => {
  it('has the pid from the first write and keeps reading to the end (bwrap writes more)', async () => {
    const info = new PassThrough();
    const pid = readChildPid(info);
    info.write('{\n    "child-pid": 4242');
    expect(await pid).toBe(4242);
    // The rest of bwrap's JSON still has a reader: closing the pipe here killed bwrap (SIGPIPE).
    expect(info.destroyed).toBe(false);
    expect(info.write(',\n    "net-namespace": 4026532000\n}\n')).toBe(true);
    info.end();
    await new Promise((resolve) => info.once('end', resolve));
  });

  it('the pid split across writes', async () => {
    const info = new PassThrough();
    const pid = readChildPid(info);
    info.write('{\n    "child-p');
    info.write('id": 17,\n');
    expect(await pid).toBe(17);
  });

  it('refuses a JSON without a pid, and no fd at all', async () => {
    const info = new PassThrough();
    const pid = readChildPid(info);
    info.end('{\n}\n');
    await expect(pid).rejects.toThrow('bwrap reported no child pid');
    await expect(readChildPid(null)).rejects.toThrow('no info fd');
  });
});
