import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../api/index.ts';
import type { Sandbox } from '../../core/index.ts';
import { EgressAudit, type EgressRecord } from '../../egress/index.ts';
import { startTestApi, useNamespace, type TestApi } from '../support/index.ts';

// The egress gateway's records through GET /audit/events: each carries its decision as fields
// (`egress`), read back from the Event the gateway's own recorder (egress/audit.ts) wrote.
const ns = useNamespace('api-audit-egress');
let api: TestApi;

beforeAll(async () => {
  api = await startTestApi(ns);
  const res = await api.call('POST', '/sandboxes', {
    key: api.keys.alice,
    body: { name: 'egs', templateRef: { name: 'default' } },
  });
  expect(res.status).toBe(201);
  const sandbox = (await res.json()) as Sandbox;
  const audit = new EgressAudit(ns.kc, pino({ level: 'silent' }));
  const record = (over: Partial<EgressRecord>): EgressRecord => ({
    namespace: ns.name,
    sandbox: 'egs',
    template: 'ClusterSandboxTemplate/default',
    uid: sandbox.metadata.uid!,
    owner: 'alice',
    host: 'pypi.org',
    port: 443,
    allowed: true,
    connections: 1,
    bytesOut: 517,
    bytesIn: 4096,
    durationMs: 35,
    summary: false,
    ...over,
  });
  // One after another: the newest first is then the last written.
  await audit.write(record({}));
  await audit.write(
    record({
      host: 'api.evil.com',
      allowed: false,
      reason: 'svc egress: api.evil.com is not allowed for sandbox egs',
      bytesOut: 0,
      bytesIn: 0,
      durationMs: 1,
    }),
  );
  await audit.write(record({ connections: 41, summary: true, bytesOut: 9, bytesIn: 10, durationMs: 11 }));
  await api.deps.audit.record({
    sandbox,
    reason: 'AgentConfigured',
    type: 'Normal',
    message: 'AgentConfigured by alice',
    actor: 'alice',
  });
});
afterAll(async () => api.close());

describe('GET /api/v1/audit/events, egress records', () => {
  it('carries each egress decision as fields; other records have none', async () => {
    const res = await api.call('GET', `/audit/events?namespace=${ns.name}&sandbox=egs`, {
      key: api.keys.alice,
    });
    expect(res.status).toBe(200);
    const { items } = (await res.json()) as { items: AuditRecord[] };
    expect(items.map((i) => [i.reason, i.type, i.actor, i.count, i.egress ?? null])).toEqual([
      ['AgentConfigured', 'Normal', 'alice', 1, null],
      [
        'EgressAllowed',
        'Normal',
        'svc-egress',
        41,
        {
          host: 'pypi.org',
          port: 443,
          decision: 'allowed',
          connections: 41,
          summary: true,
          bytesOut: 9,
          bytesIn: 10,
          durationMs: 11,
          reason: null,
        },
      ],
      [
        'EgressDenied',
        'Warning',
        'svc-egress',
        1,
        {
          host: 'api.evil.com',
          port: 443,
          decision: 'denied',
          connections: 1,
          summary: false,
          bytesOut: 0,
          bytesIn: 0,
          durationMs: 1,
          reason: 'svc egress: api.evil.com is not allowed for sandbox egs',
        },
      ],
      [
        'EgressAllowed',
        'Normal',
        'svc-egress',
        1,
        {
          host: 'pypi.org',
          port: 443,
          decision: 'allowed',
          connections: 1,
          summary: false,
          bytesOut: 517,
          bytesIn: 4096,
          durationMs: 35,
          reason: null,
        },
      ],
    ]);
    const egress = await api.call('GET', `/audit/events?namespace=${ns.name}&sandbox=egs&category=egress`, {
      key: api.keys.alice,
    });
    expect(egress.status).toBe(200);
    const only = ((await egress.json()) as { items: AuditRecord[] }).items;
    expect(only.map((i) => i.egress?.host)).toEqual(['pypi.org', 'api.evil.com', 'pypi.org']);
  });
});
