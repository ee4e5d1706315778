// The e2e tier's one cluster: a real one (hack/cluster), svc installed on it by its own chart,
// through the bring-up module the benches share (hack/cluster/bringup: SVC_E2E_STATE,
// SVC_E2E_IMAGES and SVC_E2E_INSTALL are read there).
//
//   SVC_E2E_STATE=STATE   use that run (hack/cluster/up.sh's state folder) and leave it up;
//                         unset: bring one up (NODES, default 2), and take it down at the end
//   SVC_E2E_IMAGES=0      do not run hack/cluster/images.sh (the images are there already)
//   SVC_E2E_INSTALL=0     do not run hack/cluster/install.sh (svc is installed already, and
//                         STATE/svc.env says where)
import type { TestProject } from 'vitest/node';
import { BringUp } from '../hack/cluster/bringup/index.ts';
import type { E2eEnv } from './support/env.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    e2e: E2eEnv;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = new BringUp({
    nodes: Number(process.env.NODES ?? 2),
    say: (line) => process.stderr.write(`e2e: ${line}\n`),
  });
  // A failed bring-up takes down what it made before it throws.
  const { env } = await cluster.up();
  project.provide('e2e', env);
  return () => cluster.down();
}
