import type { TestProject } from 'vitest/node';
import { startEnvironment } from '../stack/index.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfigPath: string;
    kubeVersion: string;
  }
}

/** One real control plane per test run; each test file takes a fresh namespace in it. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const env = await startEnvironment();
  process.stdout.write(
    `control plane: kube-apiserver ${env.version} at ${env.url}, ready with CRDs in ${env.startedInMs} ms\n`,
  );
  project.provide('kubeconfigPath', env.kubeconfigPath);
  project.provide('kubeVersion', env.version);
  return () => env.dispose();
}
