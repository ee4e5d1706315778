import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { Registry } from 'prom-client';
import { OperatorMetrics } from '../../operator/index.ts';
import { WarmPoolMetrics } from '../../operator/warmpool/index.ts';
import { ApiMetrics } from './metrics.ts';

const dir = join(import.meta.dirname, '..', '..', 'config', 'monitoring');

/** Every `svc_…` series a PromQL expression reads, without histogram suffixes. */
const seriesIn = (expr: string) =>
  [...expr.matchAll(/\b(svc_[a-z_]+)/g)].map((m) => m[1]!.replace(/_(bucket|count|sum)$/, ''));

describe('dashboards and alert rules', () => {
  // The API's series and the operator's (reconciles, queue, sandboxes by phase, leadership).
  const exported = [
    ...new ApiMetrics({ defaultMetrics: false }).registry.getMetricsAsArray(),
    ...new OperatorMetrics({ defaultMetrics: false }).registry.getMetricsAsArray(),
    ...(() => {
      const registry = new Registry();
      new WarmPoolMetrics(registry);
      return registry.getMetricsAsArray();
    })(),
  ].map((m) => m.name);
  const covers = (exprs: string[], series: string) => exprs.some((e) => seriesIn(e).includes(series));

  test('the alert rules read only series svc exports, by template, outcome and controller', async () => {
    const rules = parse(await readFile(join(dir, 'alerts.yaml'), 'utf8')) as {
      groups: { rules: { expr: string; alert?: string; record?: string }[] }[];
    };
    const exprs = rules.groups.flatMap((g) => g.rules.map((r) => r.expr));
    expect(exprs.length).toBeGreaterThan(0);
    for (const expr of exprs) {
      for (const series of seriesIn(expr)) expect(exported).toContain(series);
      expect(expr).not.toMatch(/\b(user|sandbox|actor)\b/);
    }
    for (const series of ['svc_invoke_requests_total', 'svc_reconcile_errors_total', 'svc_operator_leader'])
      expect(covers(exprs, series), series).toBe(true);
  });

  test('the Grafana dashboard reads only series svc exports', async () => {
    const dashboard = JSON.parse(await readFile(join(dir, 'grafana-dashboard.json'), 'utf8')) as {
      panels: { targets: { expr: string }[] }[];
    };
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
    expect(exprs.length).toBeGreaterThanOrEqual(6);
    for (const expr of exprs) for (const series of seriesIn(expr)) expect(exported).toContain(series);
    for (const series of [
      'svc_invoke_requests_total',
      'svc_invoke_duration_seconds',
      'svc_invoke_throttled_total',
      'svc_reconcile_errors_total',
      'svc_warmpool_ready',
      'svc_warmpool_claims_total',
      'svc_sandboxes_by_template',
      'svc_sandbox_cpu_cores',
      'svc_sandbox_memory_bytes',
    ])
      expect(covers(exprs, series), series).toBe(true);
  });
});
