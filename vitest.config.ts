import { defineConfig } from 'vitest/config';

// Two tiers: unit tests of pure logic beside their code (no cluster), and integration
// tests under test/ that share one real control plane started by the global setup.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            '{core,kube,telemetry,operator,webhook,api,sandboxd,devnode,cmd,cli,mcp}/**/*.test.ts',
            'clients/typescript/**/*.test.ts',
          ],
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // Files share one control plane; two cores do not gain from more workers.
          maxWorkers: 2,
        },
      },
    ],
  },
});
