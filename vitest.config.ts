import { defineConfig } from 'vitest/config';

// Three tiers: unit tests of pure logic beside their code (no cluster), integration tests
// under test/ that share one real control plane started by the global setup, and e2e tests
// under e2e/ against svc installed by its chart on a real cluster (hack/cluster; `make
// test-e2e`, which needs root).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            '{core,kube,telemetry,operator,webhook,api,sandboxd,devnode,cmd,cli,mcp,egress}/**/*.test.ts',
            'clients/typescript/**/*.test.ts',
            'hack/cluster/bringup/**/*.test.ts',
            'bench/**/*.test.ts',
            // The stack's pure parts; stack/controlplane.test.ts starts processes (integration).
            'stack/eventually.test.ts',
          ],
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'integration',
          // stack/controlplane.test.ts: the stack starter's processes die with their owner.
          include: ['test/**/*.test.ts', 'stack/controlplane.test.ts'],
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // Files share one control plane; two cores do not gain from more workers.
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.test.ts'],
          globalSetup: ['e2e/global-setup.ts'],
          // Real Pods: a cold sandbox provisions a volume and starts containers.
          testTimeout: 300_000,
          hookTimeout: 600_000,
          maxWorkers: 2,
        },
      },
    ],
  },
});
