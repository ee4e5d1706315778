// The one door of telemetry: tracer factories (OpenTelemetry), passed down, never global.
export { actorOf, createTracing, endSpan, type Tracing, type TracingOptions } from './tracing.ts';
export { SpanStatusCode, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
export { serveMetrics } from './metrics-server.ts';
