import { describe, expect, it } from 'vitest';
import { describeRecord, type EgressRecord } from '../../egress/index.ts';
import { egressFigures } from './egress.ts';

const record = (over: Partial<EgressRecord> = {}): EgressRecord => ({
  namespace: 'team',
  sandbox: 'x',
  template: 'ClusterSandboxTemplate/web',
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

// The figures are read back from the message the gateway writes: each case goes through the
// gateway's own describeRecord, so a change of its wording fails here, not in the console.
describe('egressFigures', () => {
  it('reads back every field of what the gateway wrote', () => {
    const cases: [EgressRecord, object][] = [
      [
        record(),
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
      [
        record({ connections: 999, summary: true, bytesOut: 1, bytesIn: 2, durationMs: 3 }),
        { connections: 999, summary: true, bytesOut: 1, bytesIn: 2, durationMs: 3, reason: null },
      ],
      [record({ connections: 2, summary: false }), { connections: 2, summary: false }],
      [
        record({
          host: 'api.evil.com',
          allowed: false,
          bytesOut: 0,
          bytesIn: 0,
          durationMs: 1,
          reason: 'svc egress: api.evil.com is not allowed for sandbox x',
        }),
        {
          host: 'api.evil.com',
          port: 443,
          decision: 'denied',
          reason: 'svc egress: api.evil.com is not allowed for sandbox x',
        },
      ],
      [
        // A reason that itself reads like a record is the reason, not a second head.
        record({ allowed: false, reason: 'svc egress: a:1 allowed: 1 connection, 0 bytes out; odd' }),
        {
          host: 'pypi.org',
          decision: 'denied',
          reason: 'svc egress: a:1 allowed: 1 connection, 0 bytes out; odd',
        },
      ],
      [record({ host: '::1', port: 80 }), { host: '::1', port: 80 }],
    ];
    for (const [r, want] of cases) {
      const reason = r.allowed ? 'EgressAllowed' : 'EgressDenied';
      expect(egressFigures(reason, describeRecord(r))).toMatchObject(want);
    }
  });

  it('is undefined for any other record, and for a message not in the form', () => {
    expect(egressFigures('AgentConfigured', describeRecord(record()))).toBeUndefined();
    expect(egressFigures('EgressAllowed', 'pypi.org allowed')).toBeUndefined();
    expect(egressFigures('EgressAllowed', '')).toBeUndefined();
  });
});
