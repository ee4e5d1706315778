import { copyFile, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { V1Container } from '@kubernetes/client-node';
import { SandboxPod } from '../../core/index.ts';
import { SandboxdClient } from '../../kube/index.ts';
import { sandboxPath, type BwrapMount } from './bwrap.ts';
import type { Termination } from './status.ts';

/**
 * The sandboxd shim: devnode pulls no images, so the init container that would copy
 * sandboxd out of its image is satisfied from this checkout, and the sandboxd container
 * listens on a unix socket in the Pod's folder that devnode (and the API, through the
 * Pod's annotation) reaches; the Pod's network stays its own.
 */

/** Inside the Pod, where sandboxd's unix socket lives (bound from the Pod's folder). */
const SOCKET_DIR = '/run/devnode';

/** Host address of the Pod's sandboxd socket. */
export function sandboxdSocket(podDir: string): string {
  return join(podDir, 'run', 'sandboxd.sock');
}

/** Host path of the file sandboxd writes once it listens. */
export function sandboxdReadyFile(podDir: string): string {
  return join(podDir, 'run', 'sandboxd.ready');
}

/** The host files of the sandboxd launcher, which every container gets read-only. */
export function runtimeFiles(sandboxdCommand: string[]): string[] {
  return sandboxdCommand.filter((p) => p.startsWith('/'));
}

/** Whether the container is the sandboxd one (it is given `SANDBOXD_LISTEN`). */
export function isSandboxd(c: V1Container): boolean {
  return c.env?.some((e) => e.name === 'SANDBOXD_LISTEN') ?? false;
}

/** The init container that copies sandboxd: satisfied with this checkout's sandboxd binary. */
export async function installSandboxd(
  c: V1Container,
  volumes: ReadonlyMap<string, string>,
  sandboxdCommand: string[],
): Promise<Termination> {
  const mount = c.volumeMounts?.find((m) => m.mountPath === SandboxPod.binDir);
  const dir = mount && volumes.get(mount.name);
  const startedAt = new Date();
  if (!dir) return { exitCode: 1, reason: 'Error', startedAt, finishedAt: new Date() };
  const [binary, ...rest] = sandboxdCommand;
  if (binary !== undefined && rest.length === 0) {
    // The static binary itself, as the operator's init container copies it.
    await copyFile(binary, join(dir, 'sandboxd'));
  } else {
    // A launcher with a runtime: its files are bound into the Pod one by one (bwrap.ts).
    const runtime = runtimeFiles(sandboxdCommand);
    const quoted = sandboxdCommand
      .map((a) => (a.startsWith('/') ? sandboxPath(runtime.indexOf(a), a) : a))
      .map((a) => `'${a.replaceAll("'", `'\\''`)}'`)
      .join(' ');
    await writeFile(join(dir, 'sandboxd'), `#!/bin/sh\nexec ${quoted} "$@"\n`, { mode: 0o755 });
  }
  return { exitCode: 0, reason: 'Completed', startedAt, finishedAt: new Date() };
}

/**
 * For the sandboxd container (its env names `SANDBOXD_LISTEN`): points it at the socket
 * and ready file in the Pod's folder, binds that folder into `mounts`, and returns a client
 * of it once its token is known (from `SANDBOXD_TOKEN` or the file `SANDBOXD_TOKEN_FILE`
 * names). Undefined for any other container, or while the token is not there.
 */
export async function attachSandboxd(
  env: Record<string, string>,
  mounts: BwrapMount[],
  podDir: string,
): Promise<SandboxdClient | undefined> {
  if (env.SANDBOXD_LISTEN === undefined) return undefined;
  env.SANDBOXD_LISTEN = `unix:${SOCKET_DIR}/sandboxd.sock`;
  // sandboxd writes this once it listens; devnode watches for it instead of polling.
  env.SANDBOXD_READY_FILE = `${SOCKET_DIR}/sandboxd.ready`;
  await rm(sandboxdReadyFile(podDir), { force: true }); // a crashed sandboxd's, before a restart
  mounts.push({ hostPath: join(podDir, 'run'), mountPath: SOCKET_DIR, readOnly: false });
  const token = env.SANDBOXD_TOKEN ?? (await readMounted(mounts, env.SANDBOXD_TOKEN_FILE));
  return token
    ? new SandboxdClient({ address: `unix:${sandboxdSocket(podDir)}`, token: token.trim() })
    : undefined;
}

/** A file the container will see at `path`, read from the host folder mounted there. */
async function readMounted(mounts: BwrapMount[], path: string | undefined): Promise<string | undefined> {
  if (!path) return undefined;
  const m = mounts.find((x) => path.startsWith(`${x.mountPath}/`));
  return m
    ? readFile(join(m.hostPath, path.slice(m.mountPath.length)), 'utf8').catch(() => undefined)
    : undefined;
}
