import { describe, expect, test } from 'vitest';
import { ApiMetrics } from './metrics.ts';

describe('ApiMetrics', () => {
  test("a template's throttled series is 0 from its first call and counts each refusal", async () => {
    const metrics = new ApiMetrics({ defaultMetrics: false });
    metrics.observe('invoke', { template: 't', outcome: 'completed' }, 0.2);
    metrics.observe('configure', { template: 't', outcome: 'completed' }, 0.1);
    let text = await metrics.registry.metrics();
    expect(text).toContain('svc_invoke_throttled_total{template="t",outcome="throttled"} 0\n');
    expect(text).toContain('svc_configure_throttled_total{template="t",outcome="throttled"} 0\n');

    metrics.observe('invoke', { template: 't', outcome: 'throttled' }, 0);
    text = await metrics.registry.metrics();
    expect(text).toContain('svc_invoke_throttled_total{template="t",outcome="throttled"} 1\n');
    expect(text).toContain('svc_invoke_requests_total{template="t",outcome="throttled"} 1\n');
    // A refusal has no duration.
    expect(text).not.toContain('svc_invoke_duration_seconds_count{template="t",outcome="throttled"}');
  });
});
