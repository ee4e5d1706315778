import { readFile, mkdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { BwrapMount } from './bwrap.ts';

/** The controllers whose figures sandboxd reports (usage.go): CPU time, throttling, memory. */
const WANTED = ['cpu', 'cpuacct', 'memory'];

/** One folder of the Pod's cgroup, and where the Pod sees it. */
interface Part {
  dir: string;
  /** Where inside the Pod: `/sys/fs/cgroup` (v2) or `/sys/fs/cgroup/<controller>` (v1). */
  at: string[];
}

/**
 * The Pod's own cgroup, as a kubelet gives every Pod one: a child of devnode's cgroup in
 * each hierarchy that counts CPU or memory (v1), or in the one tree (v2). Its processes
 * start in it (`wrap`), the Pod sees it mounted read-only where a container runtime puts it
 * (`mounts`; bubblewrap's cgroup namespace makes it the Pod's root), and it goes with the
 * Pod (`remove`). Limits are never set: devnode enforces none (DESIGN decision 7); the
 * cgroup is there so sandboxd's usage figures are the Pod's own, as on a cluster.
 */
export class PodCgroup {
  readonly #parts: Part[];

  private constructor(parts: Part[]) {
    this.#parts = parts;
  }

  /** Makes the cgroup `devnode-<uid>`; undefined where the host lets devnode make none. */
  static async create(uid: string): Promise<PodCgroup | undefined> {
    const [self, mountinfo] = await Promise.all([
      readFile('/proc/self/cgroup', 'utf8').catch(() => ''),
      readFile('/proc/self/mountinfo', 'utf8').catch(() => ''),
    ]);
    const parts: Part[] = [];
    for (const m of cgroupMounts(mountinfo)) {
      const own = ownPath(self, m.controllers);
      if (own === undefined) continue;
      const wanted = m.controllers.filter((c) => WANTED.includes(c));
      if (m.controllers.length > 0 && wanted.length === 0) continue;
      const at = m.controllers.length === 0 ? ['/sys/fs/cgroup'] : wanted.map((c) => `/sys/fs/cgroup/${c}`);
      parts.push({ dir: join(m.mountPoint, own, `devnode-${uid}`), at });
    }
    // v2 with v1 controllers beside it (a hybrid host): the v1 ones count, the v2 tree not.
    const v1 = parts.filter((p) => !p.at.includes('/sys/fs/cgroup'));
    const chosen = v1.length > 0 ? v1 : parts;
    try {
      await Promise.all(chosen.map((p) => mkdir(p.dir, { recursive: true })));
    } catch {
      await Promise.all(chosen.map((p) => rmdir(p.dir).catch(() => undefined)));
      return undefined;
    }
    return chosen.length > 0 ? new PodCgroup(chosen) : undefined;
  }

  /** `argv` started inside the cgroup: a shell joins it, then execs `argv` (same pid). */
  wrap(argv: string[]): string[] {
    const procs = this.#parts.map((p) => join(p.dir, 'cgroup.procs'));
    return [
      'sh',
      '-c',
      'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"',
      'sh',
      ...procs,
      '--',
      ...argv,
    ];
  }

  /** The Pod's view of its cgroup: read-only, where a container runtime mounts it. */
  get mounts(): BwrapMount[] {
    return this.#parts.flatMap((p) => p.at.map((at) => ({ hostPath: p.dir, mountPath: at, readOnly: true })));
  }

  /** Removes the cgroup once its processes are gone (a few tries: the last exit lags). */
  async remove(): Promise<void> {
    for (const p of this.#parts) {
      for (let i = 0; i < 20; i++) {
        try {
          await rmdir(p.dir);
          break;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') break;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    }
  }
}

/** The cgroup file systems mounted on the host: v1 ones list their controllers, v2 none. */
function cgroupMounts(mountinfo: string): { mountPoint: string; controllers: string[] }[] {
  return mountinfo.split('\n').flatMap((line) => {
    const [before, after] = line.split(' - ');
    if (!before || !after) return [];
    const [fstype, , superOptions = ''] = after.split(' ');
    const mountPoint = before.split(' ')[4] ?? '';
    if (fstype === 'cgroup2') return [{ mountPoint, controllers: [] }];
    if (fstype !== 'cgroup') return [];
    const controllers = superOptions.split(',').filter((o) => WANTED.includes(o) || o.startsWith('name='));
    if (controllers.some((c) => c.startsWith('name='))) return [];
    return controllers.length > 0 ? [{ mountPoint, controllers }] : [];
  });
}

/** devnode's own path in the hierarchy of `controllers` (v2: the `0::` line). */
function ownPath(self: string, controllers: string[]): string | undefined {
  for (const line of self.split('\n')) {
    const [, list, path] = line.split(':');
    if (path === undefined || list === undefined) continue;
    const listed = list.split(',');
    if (controllers.length === 0 ? list === '' : controllers.every((c) => listed.includes(c))) return path;
  }
  return undefined;
}
