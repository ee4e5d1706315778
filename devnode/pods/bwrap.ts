// The bubblewrap command line of one container, so its isolation is reviewable and tested.
import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface BwrapMount {
  hostPath: string;
  mountPath: string;
  readOnly: boolean;
}

export interface BwrapSpec {
  hostname: string;
  /** A private writable root (an overlay over the host's `/`), or undefined for a read-only host root. */
  root?: string;
  mounts: BwrapMount[];
  /** Host files the process must see even if they sit on another mount (the sandboxd launcher's runtime). */
  extraReadOnly: string[];
  workingDir: string;
  argv: string[];
}

/**
 * Own pid, mount, network, ipc and uts namespaces; the command is pid 1 of its namespace
 * (as in a container) and dies with devnode. fd 3 reports the child's host pid.
 */
export function bwrapArgs(spec: BwrapSpec): string[] {
  const root = spec.root
    ? ['--bind', spec.root, '/']
    : ['--ro-bind', '/', '/', '--tmpfs', '/root', '--tmpfs', '/run', '--tmpfs', '/var/tmp'];
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
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    ...spec.extraReadOnly.flatMap((p) => ['--ro-bind', p, p]),
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
    '--',
    ...spec.argv,
  ];
}

/**
 * A mount path with the root's symlinks resolved (`/var/run/svc` → `/run/svc` on Debian):
 * bubblewrap cannot create a mount point under a symlinked folder. The Pod's root is the
 * host's, so the host's links are the ones that count.
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
