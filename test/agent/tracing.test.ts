// Spans of configure, invoke and the operator's reconciles, captured in memory: exact names,
// exact attribute sets, and the caller's W3C trace context as their parent.
import { randomBytes } from 'node:crypto';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GROUP, SseParser, VERSION, type Sandbox, type SseMessage } from '../../core/index.ts';
import { actorOf, createTracing, type Tracing } from '../../telemetry/index.ts';
import { eventually } from '../../stack/index.ts';
import {
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  type TestApi,
} from '../support/index.ts';

const ns = useNamespace('tracing');
useDevnode(ns);
const apiSpans = new InMemorySpanExporter();
const operatorSpans = new InMemorySpanExporter();
let apiTracing: Tracing;
let api: TestApi;

const AGENT = 'echo to-stdout; echo to-stderr >&2; exit 3\n';

const operatorTracing = createTracing({ serviceName: 'svc-operator', exporter: operatorSpans });
const template = useClusterTemplate('tracing', ns, { agent: { maxConcurrentInvokes: 2 } });
useOperator(ns, {
  identity: 'tracing-test',
  logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }),
  tracer: operatorTracing.tracer,
});

beforeAll(async () => {
  apiTracing = createTracing({ serviceName: 'svc-api', exporter: apiSpans });
  api = await startTestApi(ns, { statusWaitMs: 60_000, tracing: apiTracing });
}, 60_000);

afterAll(async () => {
  await api?.close();
  await apiTracing?.shutdown();
  await operatorTracing.shutdown();
}, 30_000);

/** A fresh W3C `traceparent`, sampled, and its parts. */
function traceparent() {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { header: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

/** A configure or invoke call in-process, its SSE events read to the end. */
async function call(path: string, body: string, header: string): Promise<SseMessage[]> {
  const res = await api.call('POST', `/sandboxes/traced/${path}`, {
    key: api.keys.alice,
    body,
    headers: { traceparent: header, accept: 'text/event-stream' },
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return new SseParser().push(text);
}

const named = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);

describe('tracing', () => {
  test('one span per configure and invoke, exact attributes, the caller’s trace as parent', async () => {
    const created = await api.call('POST', '/sandboxes', {
      key: api.keys.alice,
      body: { name: 'traced', templateRef: { name: template }, mode: 'agent' },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    let sandbox: Sandbox | undefined;
    await eventually(
      async () => {
        sandbox = (await ns.custom.getNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          plural: 'sandboxes',
          namespace: ns.name,
          name: 'traced',
        })) as Sandbox;
        return sandbox.status?.phase === 'Running';
      },
      { timeoutMs: 60_000, describe: () => `traced Running: ${JSON.stringify(sandbox?.status)}` },
    );
    const resolved = sandbox!.status!.resolvedTemplate!;
    expect(resolved).toBeTruthy();

    const configureParent = traceparent();
    const configured = await call(
      'configure',
      JSON.stringify({
        files: [{ path: '/workspace/agent.sh', content: AGENT }],
        entrypoint: ['sh', '/workspace/agent.sh'],
        installCommand: ['sh', '-c', 'echo installing'],
      }),
      configureParent.header,
    );
    expect(configured.at(-1)?.event).toBe('result');

    const invokeParent = traceparent();
    const invoked = await call('invoke', '', invokeParent.header);
    const start = JSON.parse(invoked.find((m) => m.event === 'start')!.data) as { invokeId: string };
    const exit = JSON.parse(invoked.at(-1)!.data) as { exitCode: number; durationMs: number };
    expect(invoked.at(-1)?.event).toBe('exit');
    expect(exit.exitCode).toBe(3);

    await apiTracing.flush();
    const spans = apiSpans.getFinishedSpans();
    expect(spans.map((s) => s.name).sort()).toEqual(['svc.configure', 'svc.invoke']);
    const [configureSpan] = named(spans, 'svc.configure');
    const [invokeSpan] = named(spans, 'svc.invoke');

    expect(Object.keys(configureSpan!.attributes).sort()).toEqual(
      ['actor', 'duration_ms', 'exit_code', 'outcome', 'sandbox', 'template'].sort(),
    );
    expect(configureSpan!.attributes).toMatchObject({
      template: resolved,
      actor: actorOf('alice'),
      sandbox: 'traced',
      exit_code: 0,
      outcome: 'completed',
    });
    expect(configureSpan!.attributes.duration_ms).toEqual(expect.any(Number));
    expect(configureSpan!.spanContext().traceId).toBe(configureParent.traceId);
    expect(configureSpan!.parentSpanContext?.spanId).toBe(configureParent.spanId);

    expect(Object.keys(invokeSpan!.attributes).sort()).toEqual(
      [
        'template',
        'actor',
        'sandbox',
        'invoke_id',
        'exit_code',
        'duration_ms',
        'bytes_stdout',
        'bytes_stderr',
        'outcome',
      ].sort(),
    );
    expect(invokeSpan!.attributes).toEqual({
      template: resolved,
      actor: actorOf('alice'),
      sandbox: 'traced',
      invoke_id: start.invokeId,
      exit_code: 3,
      duration_ms: exit.durationMs,
      bytes_stdout: Buffer.byteLength('to-stdout\n'),
      bytes_stderr: Buffer.byteLength('to-stderr\n'),
      outcome: 'failed',
    });
    expect(invokeSpan!.attributes.actor).not.toBe('alice');
    expect(invokeSpan!.spanContext().traceId).toBe(invokeParent.traceId);
    expect(invokeSpan!.parentSpanContext?.spanId).toBe(invokeParent.spanId);

    await operatorTracing.flush();
    const reconciles = named(operatorSpans.getFinishedSpans(), 'svc.reconcile');
    const ours = reconciles.filter((s) => s.attributes.name === 'traced');
    expect(ours.length).toBeGreaterThan(0);
    for (const span of ours) {
      expect(Object.keys(span.attributes).sort()).toEqual(['controller', 'name', 'namespace', 'outcome']);
      expect(span.attributes).toMatchObject({ controller: 'sandbox', namespace: ns.name });
      expect(['ok', 'requeue', 'error']).toContain(span.attributes.outcome);
    }
  }, 120_000);
});
