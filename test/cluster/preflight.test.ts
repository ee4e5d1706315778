// hack/cluster/preflight.sh, which `make cluster` and up.sh run first: one line per missing
// prerequisite saying what to do. Each missing prerequisite is made real for one run of the
// script — as another user, or in a mount namespace of the test's own where a tmpfs or a bind
// hides what the machine has — never by a switch in the script.
import { execFile, type ExecFileException } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const script = resolve(import.meta.dirname, '../../hack/cluster/preflight.sh');
const asRoot = process.getuid?.() === 0;
let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-preflight-'));
  await writeFile(join(dir, 'not-a-device'), '');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs `sh -c SETUP && bash preflight.sh` in a private mount namespace (as root). */
function preflight(
  setup = 'true',
  [file, ...args]: [string, ...string[]] = ['unshare', '--mount', '--propagation', 'private', 'sh', '-ec'],
) {
  return new Promise<{ code: number; lines: string[] }>((done) => {
    execFile(
      file,
      [...args, `${setup}\nexec bash "$0"`, script],
      { timeout: 30_000, encoding: 'utf8' },
      (err: ExecFileException | null, _out: string, stderr: string) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        done({ code, lines: stderr.split('\n').filter(Boolean) });
      },
    );
  });
}

describe('hack/cluster/preflight.sh', () => {
  test('this machine has every prerequisite: one ok line, exit 0', async () => {
    const got = await preflight();
    expect(got).toEqual({
      code: 0,
      lines: [
        'hack/cluster: preflight ok (root, namespaces, veth and bridge, iptables, overlayfs, cgroups, /dev/kmsg, room)',
      ],
    });
  });

  test('not root: says to run as root, exit 1', async () => {
    const got = await preflight(
      'true',
      asRoot ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', 'sh', '-ec'] : ['sh', '-ec'],
    );
    expect(got).toEqual({
      code: 1,
      lines: [
        "hack/cluster: run as root (sudo make cluster): network namespaces, cgroups, mounts and each node's containerd need it",
      ],
    });
  });

  test('no cgroups, no /dev/kmsg, a read-only /run: a line for each, then the count', async () => {
    const got = await preflight(
      `mount -t tmpfs none /sys/fs/cgroup; mount --bind ${dir}/not-a-device /dev/kmsg; mount -t tmpfs -o ro none /run`,
    );
    expect(got.code).toBe(1);
    expect(got.lines).toEqual([
      expect.stringMatching(
        /^hack\/cluster: \/run\/netns cannot be made or written \(.*Read-only file system\): ip netns keeps namespaces there; mount a writable tmpfs on \/run \(mount -t tmpfs tmpfs \/run\)$/,
      ),
      'hack/cluster: no cgroup hierarchy is mounted at /sys/fs/cgroup: mount cgroup v2 (mount -t cgroup2 cgroup2 /sys/fs/cgroup) or the v1 controllers (cpu cpuacct cpuset memory pids devices freezer)',
      "hack/cluster: /dev/kmsg is not a readable character device (kubelet's OOM watcher reads it): in a container, pass it in (--device /dev/kmsg)",
      'hack/cluster: 3 prerequisite(s) missing; nothing was made',
    ]);
  });

  test('a cgroup layout it cannot use: a controller missing, or cgroups it cannot make', async () => {
    // The machine's hierarchies moved aside, then all but one put back.
    const v2 = await preflight('test -f /sys/fs/cgroup/cgroup.controllers', ['sh', '-ec']);
    const layout =
      v2.code === 0
        ? // cgroup v2: a cgroup2 mount whose root has no controller enabled for its children.
          `mkdir -p ${dir}/cg && mount -t cgroup2 none ${dir}/cg && mkdir -p ${dir}/cg/p && mount --bind ${dir}/cg/p /sys/fs/cgroup`
        : `mkdir -p ${dir}/orig && mount --rbind /sys/fs/cgroup ${dir}/orig && mount -t tmpfs none /sys/fs/cgroup
           for c in cpu cpuacct cpuset pids devices freezer; do mkdir /sys/fs/cgroup/$c; mount --bind ${dir}/orig/$c /sys/fs/cgroup/$c; done`;
    const missing = await preflight(layout);
    expect(missing.code).toBe(1);
    expect(missing.lines.at(-1)).toMatch(
      /^hack\/cluster: [1-9] prerequisite\(s\) missing; nothing was made$/,
    );
    expect(missing.lines[0]).toMatch(
      v2.code === 0
        ? /^hack\/cluster: cgroup v2(:| without the) cpu /
        : /^hack\/cluster: cgroup v1 without a memory hierarchy at \/sys\/fs\/cgroup\/memory: mount it \(mkdir -p \/sys\/fs\/cgroup\/memory && mount -t cgroup -o memory cgroup \/sys\/fs\/cgroup\/memory\), or boot with cgroup v2$/,
    );

    // Every hierarchy there but read-only, as in an unprivileged container.
    const probe = v2.code === 0 ? '/sys/fs/cgroup' : '/sys/fs/cgroup/memory';
    const readOnly = await preflight(`mount --bind ${probe} ${probe}; mount -o remount,bind,ro ${probe}`);
    expect(readOnly).toEqual({
      code: 1,
      lines: [
        expect.stringMatching(
          new RegExp(
            `^hack/cluster: cannot make cgroups under ${probe} \\(.*Read-only file system\\): a read-only cgroup file system \\(an unprivileged container\\); a VM or --privileged is needed$`,
          ),
        ),
        'hack/cluster: 1 prerequisite(s) missing; nothing was made',
      ],
    });
  });
});
