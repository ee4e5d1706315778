import { Hono, type Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../core/index.ts';
import type { AuditEntry } from '../audit/index.ts';
import { errorHandler, HttpError } from '../errors/index.ts';
import { observed, type CallEnd, type ObservedDeps } from './observed.ts';
import type { OnSandbox } from './scope.ts';

const sandbox = {
  apiVersion: 'svc.io/v1alpha1',
  kind: 'Sandbox',
  metadata: { name: 'sb', namespace: 'team' },
  spec: { createdBy: 'ann', mode: 'agent', templateRef: { kind: 'SandboxTemplate', name: 't' } },
  status: { phase: 'Running', resolvedTemplate: 'SandboxTemplate/t' },
} as unknown as Sandbox;

/** Everything `observed` writes, in order: span ends, metric observations, audit records. */
function fakeDeps() {
  const log: string[] = [];
  const spans: { name: string; attributes: Record<string, unknown>; status?: number; ends: number }[] = [];
  const deps = {
    logger: pino({ level: 'silent' }),
    tracing: {
      extract: () => undefined,
      tracer: {
        startSpan: (name: string, opts: { attributes: Record<string, unknown> }) => {
          const span = {
            name,
            attributes: { ...opts.attributes },
            status: undefined as number | undefined,
            ends: 0,
          };
          spans.push(span);
          return {
            setAttribute: (k: string, v: unknown) => void (span.attributes[k] = v),
            setAttributes: (a: Record<string, unknown>) => void Object.assign(span.attributes, a),
            setStatus: (s: { code: number }) => void (span.status = s.code),
            isRecording: () => span.ends === 0,
            end: () => {
              span.ends++;
              log.push(`span ${String(span.attributes.outcome)}`);
            },
          };
        },
      },
    },
    metrics: {
      observe: (call: string, labels: { template: string; outcome: string }) =>
        log.push(`metric ${call} ${labels.template} ${labels.outcome}`),
      observeExec: (labels: { template: string; outcome: string }) =>
        log.push(`metric exec ${labels.template} ${labels.outcome}`),
    },
    audit: {
      record: (entry: AuditEntry) => Promise.resolve(void log.push(`audit ${entry.reason}`)),
      open: (entry: AuditEntry) => {
        log.push(`audit opened ${entry.reason}`);
        return Promise.resolve({
          end: (outcome: AuditEntry) => Promise.resolve(void log.push(`audit ended ${outcome.reason}`)),
        });
      },
    },
  } as unknown as ObservedDeps;
  return { deps, log, spans };
}

function appWith(route: (c: Context<OnSandbox>) => Promise<Response>) {
  const app = new Hono<OnSandbox>();
  app.onError(errorHandler(pino({ level: 'silent' })));
  app.use(async (c, next) => {
    c.set('caller', { user: 'ann', groups: [], admin: false } as never);
    c.set('sandbox', sandbox);
    await next();
  });
  app.post('/call', route);
  return app;
}

const audited: AuditEntry = {
  sandbox,
  reason: 'AgentConfigured',
  type: 'Normal',
  message: 'm',
  actor: 'ann',
};

describe('observed', () => {
  it('records a streamed call once, when its stream ends, not when the handler returns', async () => {
    const { deps, log, spans } = fakeDeps();
    let returned = false;
    const app = appWith(async (c) => {
      const answer = await observed(c, deps, 'configure', (call) => {
        const end = Promise.withResolvers<CallEnd>();
        const response = streamSSE(c, async (out) => {
          try {
            // The handler has returned its answer; the call goes on.
            await expect.poll(() => returned).toBe(true);
            expect(log).toEqual([]);
            await out.writeSSE({ event: 'result', data: '{}' });
            end.resolve({
              outcome: 'completed',
              attributes: { exit_code: 0, outcome: 'completed' },
              audit: audited,
            });
          } finally {
            end.resolve({ attributes: { outcome: 'error' }, error: 'stream ended early' });
            await call.recorded;
          }
        });
        return Promise.resolve({ answer: response, end: end.promise });
      });
      returned = true;
      return answer;
    });
    const res = await app.request('/call', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('event: result\ndata: {}\n\n');
    expect(log).toEqual([
      'span completed',
      'metric configure SandboxTemplate/t completed',
      'audit AgentConfigured',
    ]);
    expect(spans).toEqual([
      {
        name: 'svc.configure',
        attributes: {
          actor: spans[0]?.attributes.actor,
          template: 'SandboxTemplate/t',
          sandbox: 'sb',
          exit_code: 0,
          outcome: 'completed',
        },
        status: undefined,
        ends: 1,
      },
    ]);
  });

  it('ends a refused call as its refusal: error status, the outcome the metrics name, no audit', async () => {
    const { deps, log, spans } = fakeDeps();
    const app = appWith((c) =>
      observed(c, deps, 'invoke', () => Promise.reject(new HttpError(429, 'concurrency_exceeded', 'busy'))),
    );
    const res = await app.request('/call', { method: 'POST' });
    expect(res.status).toBe(429);
    await expect.poll(() => log).toEqual(['span throttled', 'metric invoke SandboxTemplate/t throttled']);
    expect(spans[0]).toMatchObject({ name: 'svc.invoke', status: 2, ends: 1 });
    expect(spans[0]?.attributes.outcome).toBe('throttled');
    expect(typeof spans[0]?.attributes.duration_ms).toBe('number');
  });

  it('counts no refusal the metrics do not name (a 400), but ends its span', async () => {
    const { deps, log } = fakeDeps();
    const app = appWith((c) =>
      observed(c, deps, 'exec', () => Promise.reject(new HttpError(400, 'bad_request', 'no'))),
    );
    expect((await app.request('/call', { method: 'POST' })).status).toBe(400);
    await expect.poll(() => log).toEqual(['span error']);
  });

  it("answers a call's error with the end the call gave, not as a refusal", async () => {
    const { deps, log, spans } = fakeDeps();
    const app = appWith((c) =>
      observed(c, deps, 'exec', () =>
        Promise.resolve({
          error: new HttpError(502, 'sandbox_unreachable', 'gone'),
          end: {
            outcome: 'error',
            attributes: { exit_code: -1, outcome: 'error' },
            audit: { ...audited, reason: 'SandboxExec' },
          },
        }),
      ),
    );
    const res = await app.request('/call', { method: 'POST' });
    expect(res.status).toBe(502);
    await expect
      .poll(() => log)
      .toEqual(['span error', 'metric exec SandboxTemplate/t error', 'audit SandboxExec']);
    expect(spans[0]).toMatchObject({ status: undefined, ends: 1, attributes: { exit_code: -1 } });
  });

  it('writes the end into the audit record the call opened', async () => {
    const { deps, log } = fakeDeps();
    const app = appWith((c) =>
      observed(c, deps, 'invoke', async (call) => {
        await call.openAudit({ ...audited, reason: 'AgentInvokeStarted' });
        return {
          answer: c.body('ok'),
          end: {
            outcome: 'completed',
            attributes: { outcome: 'completed' },
            audit: { ...audited, reason: 'AgentInvokeCompleted' },
          },
        };
      }),
    );
    expect((await app.request('/call', { method: 'POST' })).status).toBe(200);
    await expect
      .poll(() => log)
      .toEqual([
        'audit opened AgentInvokeStarted',
        'span completed',
        'metric invoke SandboxTemplate/t completed',
        'audit ended AgentInvokeCompleted',
      ]);
  });
});
