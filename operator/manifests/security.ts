import type { V1Container } from '@kubernetes/client-node';
import { DEFAULT_RUN_AS, type SandboxTemplateSpec } from '../../core/index.ts';

/**
 * The user the template's processes run as: its `runAsUser`/`runAsGroup`, 1000:1000 when
 * unset. Root (`runAsUser: 0`) only reaches here when policy `allowRootSandboxes` let the
 * sandbox be created.
 */
export function sandboxUser(template: SandboxTemplateSpec): { uid: number; gid: number } {
  const uid = template.runAsUser ?? DEFAULT_RUN_AS;
  return { uid, gid: template.runAsGroup ?? uid };
}

/**
 * What sandboxd keeps of root, each for a reason; everything else is dropped. All are in the
 * Pod Security Standards' baseline list, so the Pod is admitted where `baseline` is enforced.
 */
export const SANDBOXD_CAPABILITIES = [
  // Start every process (command, exec, terminal, install, invoke) as the template's user.
  'SETUID',
  'SETGID',
  // Give files written through the API, and a workspace made by root before, to that user.
  'CHOWN',
  // Signal the user's processes (cancel, terminal close, stop): they are another uid now.
  'KILL',
  // Write and read through the API where the user made folders and files only it may use
  // (a 0700 folder, a 0600 file): sandboxd acts for the user on the whole workspace.
  'DAC_OVERRIDE',
  // Set the mode and time of a folder the user owns when an archive extracts over it.
  'FOWNER',
] as const;

/** Shared by every container: no privilege gained by exec, the runtime's seccomp profile. */
const BASE: V1Container['securityContext'] = {
  allowPrivilegeEscalation: false,
  seccompProfile: { type: 'RuntimeDefault' },
};

/**
 * sandboxd's container: uid 0 (so `runAsNonRoot` cannot be set on it) with only
 * SANDBOXD_CAPABILITIES. `allowPrivilegeEscalation: false` sets no_new_privs, so the user's
 * processes, which leave uid 0 and with it every capability, cannot regain any through a
 * setuid or file-capability binary. A different uid and no capabilities is what keeps them
 * from signalling, tracing or replacing sandboxd, reading its memory or its token.
 */
export function sandboxdSecurity(): V1Container['securityContext'] {
  return {
    ...BASE,
    runAsUser: 0,
    runAsGroup: 0,
    runAsNonRoot: false,
    capabilities: { drop: ['ALL'], add: [...SANDBOXD_CAPABILITIES] },
  };
}

/**
 * A container that runs as a plain user with no capabilities: the init container that
 * copies sandboxd (as nobody, `65532`: the copy it makes is mounted read-only) and the
 * memory sidecar (as the template's user, since it writes in the user's workspace).
 */
export function userSecurity(user: { uid: number; gid: number }): V1Container['securityContext'] {
  return {
    ...BASE,
    runAsUser: user.uid,
    runAsGroup: user.gid,
    ...(user.uid === 0 ? {} : { runAsNonRoot: true }),
    capabilities: { drop: ['ALL'] },
  };
}

/** The uid the init container copies sandboxd as: nobody's, the distroless convention. */
export const INSTALL_USER = { uid: 65532, gid: 65532 };
