import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Outcome } from './gateway.ts';
import { EgressTrail, type EgressRecord } from './trail.ts';
import { describeRecord } from './audit.ts';

const asker = {
  namespace: 'team',
  sandbox: 'x',
  template: 'ClusterSandboxTemplate/web',
  allowedHosts: ['pypi.org'],
  uid: 'u-1',
  owner: 'alice',
};
const outcome = (over: Partial<Outcome> = {}): Outcome => ({
  asker,
  source: '10.0.0.7',
  host: 'pypi.org',
  port: 443,
  allowed: true,
  bytesOut: 100,
  bytesIn: 1000,
  durationMs: 10,
  ...over,
});

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('EgressTrail', () => {
  it('writes the first connection at once and sums the like ones of its window into one summary', () => {
    const written: EgressRecord[] = [];
    const trail = new EgressTrail({ windowMs: 60_000, write: (r) => written.push(r) });
    for (let i = 0; i < 1000; i++) trail.add(outcome());
    expect(written).toHaveLength(1);
    expect(written[0]).toEqual({
      namespace: 'team',
      sandbox: 'x',
      template: 'ClusterSandboxTemplate/web',
      uid: 'u-1',
      owner: 'alice',
      host: 'pypi.org',
      port: 443,
      allowed: true,
      connections: 1,
      bytesOut: 100,
      bytesIn: 1000,
      durationMs: 10,
      summary: false,
    });
    vi.advanceTimersByTime(60_000);
    expect(written).toHaveLength(2);
    expect(written[1]).toMatchObject({ connections: 999, bytesOut: 99_900, bytesIn: 999_000, summary: true });
    expect(describeRecord(written[1]!)).toBe(
      'pypi.org:443 allowed: 999 more connections in the window, 99900 bytes out, 999000 bytes in, 9990 ms',
    );
    // A new window starts with a record of its own again.
    trail.add(outcome());
    expect(written).toHaveLength(3);
    expect(written[2]).toMatchObject({ connections: 1, summary: false });
  });

  it('keeps hosts, ports and refusals apart, and writes nothing for no sandbox', () => {
    const written: EgressRecord[] = [];
    const trail = new EgressTrail({ windowMs: 1000, write: (r) => written.push(r) });
    const denied = {
      allowed: false,
      reason: 'svc egress: evil.com is not allowed for sandbox x',
      host: 'evil.com',
    };
    trail.add(outcome());
    trail.add(outcome({ port: 80 }));
    trail.add(outcome({ ...denied, bytesOut: 0, bytesIn: 0 }));
    trail.add(outcome({ asker: undefined }));
    expect(written.map(describeRecord)).toEqual([
      'pypi.org:443 allowed: 1 connection, 100 bytes out, 1000 bytes in, 10 ms',
      'pypi.org:80 allowed: 1 connection, 100 bytes out, 1000 bytes in, 10 ms',
      'evil.com:443 denied: 1 connection, 0 bytes out, 0 bytes in, 10 ms; svc egress: evil.com is not allowed for sandbox x',
    ]);
    vi.advanceTimersByTime(1000);
    expect(written).toHaveLength(3);
  });

  it('flush writes what is pending', () => {
    const written: EgressRecord[] = [];
    const trail = new EgressTrail({ windowMs: 60_000, write: (r) => written.push(r) });
    trail.add(outcome());
    trail.add(outcome());
    trail.flush();
    expect(written.map((r) => r.connections)).toEqual([1, 1]);
    expect(written[1]!.summary).toBe(true);
  });
});
