import { createHash } from 'node:crypto';
import {
  ProxyTracerProvider,
  ROOT_CONTEXT,
  SpanStatusCode,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  SimpleSpanProcessor,
  TracerProvider,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';

export interface TracingOptions {
  /** The `service.name` resource attribute: `svc-api`, `svc-operator`. */
  serviceName: string;
  /** An OTLP/HTTP base URL (`OTEL_EXPORTER_OTLP_ENDPOINT`): spans go, batched, to `<it>/v1/traces`. */
  otlpEndpoint?: string;
  /** Spans go here as each ends (tests pass an `InMemorySpanExporter`). */
  exporter?: SpanExporter;
}

export interface Tracing {
  tracer: Tracer;
  /** The caller's trace context from its W3C `traceparent` (and `tracestate`) headers. */
  extract(headers: Headers): Context;
  /** Exports every span ended so far (export is asynchronous, even to an in-memory exporter). */
  flush(): Promise<void>;
  /** Exports what is still buffered, then stops. */
  shutdown(): Promise<void>;
}

const fromHeaders: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};

/**
 * A tracer of its own, registered nowhere global: the caller passes it down. With neither
 * an endpoint nor an exporter it is the API's no-op tracer, whose spans record nothing.
 *
 * @example
 * const tracing = createTracing({ serviceName: 'svc-api', otlpEndpoint: 'http://collector:4318' });
 * const span = tracing.tracer.startSpan('svc.invoke', {}, tracing.extract(request.headers));
 */
export function createTracing(o: TracingOptions): Tracing {
  const propagator = new W3CTraceContextPropagator();
  const extract = (headers: Headers) => propagator.extract(ROOT_CONTEXT, headers, fromHeaders);
  const processors: SpanProcessor[] = [];
  if (o.exporter) processors.push(new SimpleSpanProcessor({ exporter: o.exporter }));
  if (o.otlpEndpoint) {
    const url = `${o.otlpEndpoint.replace(/\/+$/, '')}/v1/traces`;
    processors.push(new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url }) }));
  }
  if (processors.length === 0) {
    return {
      tracer: new ProxyTracerProvider().getTracer(o.serviceName),
      extract,
      flush: () => Promise.resolve(),
      shutdown: () => Promise.resolve(),
    };
  }
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': o.serviceName }),
    spanProcessors: processors,
  });
  return {
    tracer: provider.getTracer(o.serviceName),
    extract,
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/**
 * The `actor` of a span: a stable digest of the user (16 hex digits of its SHA-256), so
 * spans of one user group together without naming them.
 */
export const actorOf = (user: string): string => createHash('sha256').update(user).digest('hex').slice(0, 16);

/**
 * Sets a span's last attributes and ends it; with `err`, marks it failed. The status
 * carries no message: error text can name users, and attributes are the span's only words.
 */
export function endSpan(span: Span, attributes: Attributes, err?: unknown): void {
  span.setAttributes(attributes);
  if (err !== undefined) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
