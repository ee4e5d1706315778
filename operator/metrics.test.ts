import { pino } from 'pino';
import { describe, expect, test } from 'vitest';
import { serveMetrics } from '../telemetry/index.ts';
import { OperatorMetrics } from './metrics.ts';

describe('operator metrics', () => {
  test('reconciles by result, errors, queue depth and sandboxes by phase, on /metrics', async () => {
    const metrics = new OperatorMetrics({ defaultMetrics: false });
    metrics.setLeader(true);
    metrics.observe({
      controllers: () => [
        { name: 'sandbox', depth: 3 },
        { name: 'pool', depth: 1 },
      ],
      phases: () => ['Running', 'Running', 'Error', undefined],
    });
    let calls = 0;
    const reconcile = metrics.instrument('sandbox', (key) => {
      calls++;
      if (key === 'ns/bad') return Promise.reject(new Error('boom'));
      return Promise.resolve(key === 'ns/later' ? 1000 : undefined);
    });
    const log = pino({ level: 'silent' });
    await reconcile('ns/ok', log);
    await reconcile('ns/later', log);
    await expect(reconcile('ns/bad', log)).rejects.toThrow('boom');
    expect(calls).toBe(3);

    const served = await serveMetrics(metrics.registry, { host: '127.0.0.1', port: 0 });
    try {
      const text = await (await fetch(`${served.url}/metrics`)).text();
      expect(text).toContain('svc_operator_leader 1');
      expect(text).toContain('svc_reconcile_total{controller="sandbox",result="ok"} 1');
      expect(text).toContain('svc_reconcile_total{controller="sandbox",result="requeue"} 1');
      expect(text).toContain('svc_reconcile_total{controller="sandbox",result="error"} 1');
      expect(text).toContain('svc_reconcile_errors_total{controller="sandbox"} 1');
      expect(text).toContain('svc_reconcile_duration_seconds_count{controller="sandbox"} 3');
      expect(text).toContain('svc_workqueue_depth{controller="sandbox"} 3');
      expect(text).toContain('svc_workqueue_depth{controller="pool"} 1');
      expect(text).toContain('svc_sandboxes{phase="Running"} 2');
      expect(text).toContain('svc_sandboxes{phase="Error"} 1');
      expect(text).toContain('svc_sandboxes{phase="Pending"} 1');
      expect(text).toContain('svc_sandboxes{phase="Stopped"} 0');
      expect((await fetch(`${served.url}/other`)).status).toBe(404);
    } finally {
      await served.close();
    }
  });

  test('usage by template and sandboxes by phase and template: never a sandbox or a user label', async () => {
    const metrics = new OperatorMetrics({ defaultMetrics: false });
    metrics.observe({
      controllers: () => [],
      phases: () => ['Running', 'Running', 'Stopped'],
      templates: () => [
        { phase: 'Running', template: 'ClusterSandboxTemplate/default' },
        { phase: 'Running', template: 'ClusterSandboxTemplate/default' },
        { phase: 'Stopped', template: 'SandboxTemplate/gpu' },
      ],
    });
    metrics.observeUsage('ClusterSandboxTemplate/default', 0.9, 200 * 1024 * 1024);
    metrics.observeUsage('ClusterSandboxTemplate/default', 0.02, 20 * 1024 * 1024);
    const text = await metrics.registry.metrics();
    expect(text).toContain(
      'svc_sandboxes_by_template{phase="Running",template="ClusterSandboxTemplate/default"} 2',
    );
    expect(text).toContain('svc_sandboxes_by_template{phase="Stopped",template="SandboxTemplate/gpu"} 1');
    expect(text).toContain(
      'svc_sandbox_cpu_cores_bucket{le="0.05",template="ClusterSandboxTemplate/default"} 1',
    );
    expect(text).toContain(
      'svc_sandbox_cpu_cores_bucket{le="1",template="ClusterSandboxTemplate/default"} 2',
    );
    expect(text).toContain('svc_sandbox_cpu_cores_count{template="ClusterSandboxTemplate/default"} 2');
    expect(text).toContain(
      `svc_sandbox_memory_bytes_bucket{le="${256 * 1024 * 1024}",template="ClusterSandboxTemplate/default"} 2`,
    );
  });

  test('a standby reports svc_operator_leader 0 and process metrics, but no queue or sandboxes', async () => {
    const metrics = new OperatorMetrics();
    const text = await metrics.registry.metrics();
    expect(text).toContain('svc_operator_leader 0');
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).not.toMatch(/^svc_workqueue_depth\{/m);
    expect(text).not.toMatch(/^svc_sandboxes\{/m);
  });
});
