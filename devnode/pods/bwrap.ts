// The bubblewrap command line of one container, so its isolation is reviewable and tested.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export interface BwrapMount {
  hostPath: string;
  mountPath: string;
  readOnly: boolean;
}

export interface BwrapSpec {
  hostname: string;
  /**
   * A private writable view of the host's `/` (an overlay over it), whose system folders
   * the Pod gets; undefined for the host's own, read-only.
   */
  root?: string;
  mounts: BwrapMount[];
  /**
   * Host files the process must run (the sandboxd launcher's runtime), each bound read-only
   * by itself at `sandboxPath(index, path)`, never with the folder it sits in.
   */
  extraReadOnly: string[];
  workingDir: string;
  argv: string[];
  /**
   * The capabilities the process keeps (`CAP_` names), as a container's securityContext
   * `capabilities` with `drop: [ALL]` says; undefined keeps bwrap's default for root: all.
   */
  capabilities?: string[];
}

/**
 * What a container image would hold: the system's programs, libraries and configuration.
 * Everything else of the host (its `/root`, `/home`, `/tmp`, `/work`, `/mnt`, the checkout
 * and devnode's own state) is not in the Pod's root at all.
 */
const SYSTEM = ['usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32', 'etc', 'opt', 'var'];
/** Where the Pod sees the host files of `extraReadOnly`. */
const RUNTIME_DIR = '/.devnode';

/** The path inside the Pod of the `index`-th file of `extraReadOnly`. */
export function sandboxPath(index: number, hostPath: string): string {
  return `${RUNTIME_DIR}/${index}/${basename(hostPath)}`;
}

/**
 * Own pid, mount, network, ipc and uts namespaces; the command is pid 1 of its namespace
 * (as in a container) and dies with devnode. fd 3 reports the child's host pid. The root is
 * a fresh tmpfs holding the host's system folders (from the Pod's overlay, so writes there
 * stay the Pod's), empty `/root`, `/home`, `/tmp`, `/run` and `/var/tmp`, and the Pod's mounts.
 */
export function bwrapArgs(spec: BwrapSpec): string[] {
  const root = SYSTEM.flatMap((name) => {
    const host = `/${name}`;
    let stat;
    try {
      stat = lstatSync(host);
    } catch {
      return [];
    }
    if (stat.isSymbolicLink()) return ['--symlink', readlinkSync(host), host];
    if (!stat.isDirectory()) return [];
    return spec.root ? ['--bind', join(spec.root, name), host] : ['--ro-bind', host, host];
  });
  const empty = ['/root', '/home', '/run', '/var/tmp'].flatMap((p) => ['--tmpfs', p]);
  return [
    '--die-with-parent',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-net',
    '--unshare-cgroup-try',
    '--hostname',
    spec.hostname,
    ...root,
    ...empty,
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--perms',
    '1777',
    '--tmpfs',
    '/tmp',
    ...spec.extraReadOnly.flatMap((p, i) => ['--ro-bind', p, sandboxPath(i, p)]),
    ...spec.mounts.flatMap((m) => [
      m.readOnly ? '--ro-bind' : '--bind',
      m.hostPath,
      throughSymlinks(m.mountPath),
    ]),
    '--chdir',
    spec.workingDir,
    '--info-fd',
    '3',
    '--as-pid-1',
    ...(spec.capabilities
      ? ['--cap-drop', 'ALL', ...spec.capabilities.flatMap((c) => ['--cap-add', c])]
      : []),
    '--',
    ...spec.argv,
  ];
}

/**
 * A mount path with the root's symlinks resolved (`/var/run/svc` → `/run/svc` on Debian):
 * bubblewrap cannot create a mount point under a symlinked folder. The Pod's system folders
 * are the host's, so the host's links are the ones that count.
 */
export function throughSymlinks(path: string): string {
  let existing = path;
  const rest: string[] = [];
  while (existing !== '/') {
    try {
      return join(realpathSync(existing), ...rest);
    } catch {
      rest.unshift(existing.slice(dirname(existing).length).replace(/^\//, ''));
      existing = dirname(existing);
    }
  }
  return path;
}
