import { open, readFile, rm } from 'node:fs/promises';

export interface DevLock {
  release(): Promise<void>;
}

/** Who holds the lock of a state folder, when someone does. */
export interface Holder {
  pid: number;
}

/**
 * One `make dev` per state folder: `<dir>/dev.lock` holds the pid of the `make dev` that
 * owns the folder. A lock whose pid is gone (that run was killed) is taken over; a live one
 * is answered at once with its holder, instead of two control planes fighting over one etcd
 * folder until a timeout. Created with O_EXCL, so two starts at the same moment cannot both
 * win.
 */
export async function lockStateDir(path: string): Promise<DevLock | Holder> {
  for (let tries = 0; tries < 3; tries++) {
    try {
      const file = await open(path, 'wx', 0o644);
      await file.writeFile(`${process.pid}\n`);
      await file.close();
      return { release: () => rm(path, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const pid = Number((await readFile(path, 'utf8').catch(() => '')).trim());
    if (pid > 0 && (await isDevProcess(pid))) return { pid };
    await rm(path, { force: true }); // the holder died without releasing it
  }
  throw new Error(`could not take ${path}`);
}

/** Whether `pid` is alive and is a `make dev` (a recycled pid of something else is not). */
async function isDevProcess(pid: number): Promise<boolean> {
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return cmdline.split('\0').some((arg) => arg.endsWith('hack/dev.ts'));
}
