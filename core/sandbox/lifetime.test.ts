import { describe, expect, test } from 'vitest';
import { isExpired, sandboxExpiry } from './lifetime.ts';
import type { Sandbox } from './resource.ts';

const T0 = Date.parse('2026-01-01T10:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000);
const iso = (s: number) => at(s).toISOString();

function sandbox(
  spec: { timeout?: string; idleTimeout?: string },
  annotations: Record<string, string> = {},
  expiredAt?: number,
): Sandbox {
  return {
    apiVersion: 'svc.io/v1alpha1',
    kind: 'Sandbox',
    metadata: { name: 's', namespace: 'ns', annotations },
    spec: { templateRef: { kind: 'ClusterSandboxTemplate', name: 't' }, ...spec } as Sandbox['spec'],
    ...(expiredAt === undefined
      ? {}
      : {
          status: {
            conditions: [
              {
                type: 'Expired',
                status: 'True',
                reason: 'TimeoutExceeded',
                message: '',
                lastTransitionTime: iso(expiredAt).replace(/\.\d+Z$/, 'Z'),
              },
            ],
          },
        }),
  };
}

describe('sandboxExpiry', () => {
  // [what, spec, template, annotations, pod created (s), now (s), expected]
  const rows: [string, object, object, Record<string, string>, number | undefined, number, object][] = [
    ['no limits: never expires, no requeue', {}, {}, {}, 0, 1e6, { expired: false }],
    ['timeout 0 is infinite', { timeout: '0' }, {}, {}, 0, 1e6, { expired: false }],
    ['idleTimeout 0 is infinite', { idleTimeout: '0' }, {}, {}, 0, 1e6, { expired: false }],
    ['template timeout 0 is infinite', {}, { timeout: '0' }, {}, 0, 1e6, { expired: false }],
    ['no Pod: no lifetime runs', { timeout: '1s' }, {}, {}, undefined, 1e6, { expired: false }],
    [
      'before the timeout: look again just after it',
      { timeout: '1m' },
      {},
      {},
      0,
      30,
      { expired: false, requeueAfter: 30_050 },
    ],
    [
      'at the timeout',
      { timeout: '1m' },
      {},
      {},
      0,
      60,
      { expired: true, reason: 'TimeoutExceeded', message: 'stopped after its timeout of 1m' },
    ],
    [
      'the sandbox overrides its template',
      { timeout: '0' },
      { timeout: '1s' },
      {},
      0,
      1e6,
      { expired: false },
    ],
    [
      'the template applies when the sandbox says nothing',
      {},
      { timeout: '10s' },
      {},
      0,
      10,
      { expired: true, reason: 'TimeoutExceeded' },
    ],
    [
      'idle from the Pod start without activity',
      { idleTimeout: '30s' },
      {},
      {},
      0,
      30,
      {
        expired: true,
        reason: 'IdleTimeoutExceeded',
        message: 'stopped after 30s without activity (idle since 2026-01-01T10:00:00.000Z)',
      },
    ],
    [
      'activity pushes idle expiry out',
      { idleTimeout: '30s' },
      {},
      { 'svc.io/last-activity': iso(20) },
      0,
      40,
      { expired: false, requeueAfter: 10_050 },
    ],
    [
      'activity older than the Pod counts from the Pod',
      { idleTimeout: '30s' },
      {},
      { 'svc.io/last-activity': iso(-100) },
      0,
      29,
      { expired: false, requeueAfter: 1_050 },
    ],
    [
      'the earlier of both limits wins',
      { timeout: '1h', idleTimeout: '30s' },
      {},
      {},
      0,
      10,
      { expired: false, requeueAfter: 20_050 },
    ],
    [
      'a resume starts a new lifetime even while the old Pod lingers',
      { timeout: '1m' },
      {},
      { 'svc.io/resume-requested-at': iso(100) },
      0,
      120,
      { expired: false, requeueAfter: 40_050 },
    ],
    [
      'a resume request older than the Pod changes nothing',
      { timeout: '1m' },
      {},
      { 'svc.io/resume-requested-at': iso(-100) },
      0,
      60,
      { expired: true, reason: 'TimeoutExceeded' },
    ],
    [
      'a requeue is never sooner than 100 ms',
      { timeout: '1m' },
      {},
      {},
      0,
      59.99,
      { expired: false, requeueAfter: 100 },
    ],
  ];
  test.each(rows)('%s', (_what, spec, template, annotations, pod, now, expected) => {
    const got = sandboxExpiry(
      sandbox(spec, annotations),
      template,
      pod === undefined ? undefined : at(pod),
      at(now),
    );
    expect(got).toMatchObject(expected);
    if (!('requeueAfter' in expected)) expect(got).not.toHaveProperty('requeueAfter');
  });
});

describe('sandboxExpiry with activity sandboxd saw', () => {
  const idle = sandbox({ idleTimeout: '20s' });
  test('status.lastActivityAt pushes the idle expiry out', () => {
    const s = { ...idle, status: { lastActivityAt: iso(50) } };
    expect(sandboxExpiry(s, {}, at(0), at(60))).toEqual({ expired: false, requeueAfter: 10_050 });
  });
  test('activity seen just now starts a new idle period', () => {
    expect(sandboxExpiry(idle, {}, at(0), at(60), at(60))).toEqual({ expired: false, requeueAfter: 20_050 });
  });
  test('the expiry names the idle period from the last activity seen', () => {
    expect(sandboxExpiry(idle, {}, at(0), at(90), at(65))).toMatchObject({
      expired: true,
      message: `stopped after 20s without activity (idle since ${iso(65)})`,
    });
  });
});

describe('isExpired', () => {
  const rows: [string, Record<string, string>, number | undefined, boolean][] = [
    ['never expired', {}, undefined, false],
    ['expired, never resumed', {}, 60, true],
    ['expired; the original manifest re-applied carries no resume', { other: 'x' }, 60, true],
    ['resumed after the expiry', { 'svc.io/resume-requested-at': iso(61) }, 60, false],
    ['a resume from before the expiry does not count', { 'svc.io/resume-requested-at': iso(30) }, 60, true],
    ['a resume that is not a time does not count', { 'svc.io/resume-requested-at': 'soon' }, 60, true],
  ];
  test.each(rows)('%s', (_what, annotations, expiredAt, expected) => {
    expect(isExpired(sandbox({}, annotations, expiredAt))).toBe(expected);
  });

  test('an Expired condition that is False (resumed) does not hold the sandbox', () => {
    const s = sandbox({}, {}, 60);
    s.status!.conditions![0]!.status = 'False';
    expect(isExpired(s)).toBe(false);
  });
});
