import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { ApiMetrics } from './metrics.ts';

const dir = join(import.meta.dirname, '..', '..', 'config', 'monitoring');

/** Every `svc_…` series a PromQL expression reads, without histogram suffixes. */
const seriesIn = (expr: string) =>
  [...expr.matchAll(/\b(svc_[a-z_]+)/g)].map((m) => m[1]!.replace(/_(bucket|count|sum)$/, ''));

describe('dashboards and alert rules', () => {
  const exported = new ApiMetrics({ defaultMetrics: false }).registry.getMetricsAsArray().map((m) => m.name);

  test('the alert rules read only series the API exports, by template and outcome', async () => {
    const rules = parse(await readFile(join(dir, 'alerts.yaml'), 'utf8')) as {
      groups: { rules: { expr: string; alert?: string; record?: string }[] }[];
    };
    const exprs = rules.groups.flatMap((g) => g.rules.map((r) => r.expr));
    expect(exprs.length).toBeGreaterThan(0);
    for (const expr of exprs) {
      for (const series of seriesIn(expr)) expect(exported).toContain(series);
      expect(expr).not.toMatch(/\b(user|sandbox|actor)\b/);
    }
  });

  test('the Grafana dashboard reads only series the API exports', async () => {
    const dashboard = JSON.parse(await readFile(join(dir, 'grafana-dashboard.json'), 'utf8')) as {
      panels: { targets: { expr: string }[] }[];
    };
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
    expect(exprs.length).toBeGreaterThanOrEqual(6);
    for (const expr of exprs) for (const series of seriesIn(expr)) expect(exported).toContain(series);
  });
});
