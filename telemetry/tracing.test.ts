import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { describe, expect, test } from 'vitest';
import { actorOf, createTracing } from './index.ts';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_ID = 'b7ad6b7169203331';
const headers = new Headers({ traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` });

describe('createTracing', () => {
  test('with neither an endpoint nor an exporter, spans record nothing', async () => {
    const tracing = createTracing({ serviceName: 'svc-test' });
    const span = tracing.tracer.startSpan('svc.invoke', { attributes: { outcome: 'completed' } });
    expect(span.isRecording()).toBe(false);
    span.end();
    // The caller's context still flows through, so a no-op span keeps the caller's trace id.
    const child = tracing.tracer.startSpan('svc.invoke', {}, tracing.extract(headers));
    expect(child.isRecording()).toBe(false);
    expect(child.spanContext().traceId).toBe(TRACE_ID);
    await tracing.shutdown();
  });

  test('with an exporter, spans are children of the caller’s traceparent', async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = createTracing({ serviceName: 'svc-test', exporter });
    const span = tracing.tracer.startSpan(
      'svc.configure',
      { attributes: { outcome: 'completed' } },
      tracing.extract(headers),
    );
    expect(span.isRecording()).toBe(true);
    span.end();
    await tracing.flush();
    const [done, ...more] = exporter.getFinishedSpans();
    expect(more).toEqual([]);
    expect(done?.name).toBe('svc.configure');
    expect(done?.spanContext().traceId).toBe(TRACE_ID);
    expect(done?.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(done?.attributes).toEqual({ outcome: 'completed' });
    expect(done?.resource.attributes['service.name']).toBe('svc-test');
    await tracing.shutdown();
  });

  test('a missing or malformed traceparent starts a new trace', () => {
    const tracing = createTracing({ serviceName: 'svc-test', exporter: new InMemorySpanExporter() });
    for (const h of [new Headers(), new Headers({ traceparent: 'garbage' })]) {
      const span = tracing.tracer.startSpan('svc.invoke', {}, tracing.extract(h));
      expect(span.spanContext().traceId).not.toBe(TRACE_ID);
      expect(span.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
      span.end();
    }
  });
});

describe('actorOf', () => {
  test('is a stable 16-hex-digit digest that never contains the user', () => {
    expect(actorOf('alice')).toBe('2bd806c97f0e00af');
    expect(actorOf('alice')).toBe(actorOf('alice'));
    expect(actorOf('bob')).not.toBe(actorOf('alice'));
    expect(actorOf('alice')).not.toContain('alice');
  });
});
