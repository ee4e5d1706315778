import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';

/** Everything devnode is told; `cmd/devnode.ts` parses it once and passes it down. */
export interface DevnodeOptions {
  kc: KubeConfig;
  logger: Logger;
  /** Name of the Node object devnode registers and binds Pods to. */
  nodeName: string;
  /** Absolute folder for volumes, snapshots and per-Pod state. */
  dataDir: string;
  /** Only this namespace's Pods, claims, snapshots and Services (tests share a cluster). */
  namespace?: string;
  /**
   * The command that stands in for the svc image's sandboxd executable: the init container
   * that installs sandboxd gets a launcher running it instead of a copy of the binary.
   */
  sandboxdCommand: string[];
  /**
   * Each new claim's folder is a tmpfs of the claim's requested size, so a volume fills up
   * (ENOSPC) where a real one would. Off by default: such a volume lives in memory and does
   * not outlive devnode. For tests of a full volume.
   */
  enforceVolumeSize?: boolean;
}

/** Where devnode keeps things under its data folder. */
export function layout(dataDir: string) {
  return {
    volume: (pv: string) => join(dataDir, 'volumes', pv),
    snapshot: (content: string) => join(dataDir, 'snapshots', content),
    // Unix socket paths are limited to 107 bytes, so a Pod's folder has a short name.
    pod: (uid: string) => join(dataDir, 'pods', uid.slice(0, 13)),
  };
}
export type Layout = ReturnType<typeof layout>;
