import { describe, expect, test } from 'vitest';
import {
  evictionResumed,
  podEviction,
  podFailure,
  podStage,
  sandboxVerdict,
  type PodView,
  type Stage,
} from './verdict.ts';

const volume = { maxRestarts: 5, volumeBound: true, volumeMessage: 'claim ws-s is bound' };

function pod(status: PodView['status'], deleting = false): PodView {
  return { metadata: deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}, status };
}

const running = (restartCount = 0, ready = true): PodView =>
  pod({
    phase: 'Running',
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    containerStatuses: [{ name: 'sandboxd', restartCount, state: { running: {} } }],
  });

describe('podFailure', () => {
  test('a Failed Pod is failing, with its message or else its reason', () => {
    expect(podFailure(pod({ phase: 'Failed', message: 'evicted: low memory' }), 5)).toBe(
      'the sandbox Pod failed: evicted: low memory',
    );
    expect(podFailure(pod({ phase: 'Failed', reason: 'Evicted' }), 5)).toBe(
      'the sandbox Pod failed: Evicted',
    );
    expect(podFailure(pod({ phase: 'Failed' }), 5)).toBe('the sandbox Pod failed:');
  });

  test('a container restarted maxRestarts times keeps failing, with its last exit', () => {
    const crashing = pod({
      phase: 'Running',
      containerStatuses: [
        {
          name: 'sandboxd',
          restartCount: 5,
          state: { waiting: {} },
          lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
        },
      ],
    });
    expect(podFailure(crashing, 5)).toBe(
      'container sandboxd keeps failing: restarted 5 times (last exit code 137, OOMKilled)',
    );
    expect(podFailure(crashing, 6)).toBeUndefined();
  });

  test('an init container counts too, and an exit without a reason says only its code', () => {
    const init = pod({
      phase: 'Pending',
      initContainerStatuses: [
        { name: 'install-sandboxd', restartCount: 3, lastState: { terminated: { exitCode: 1 } } },
      ],
    });
    expect(podFailure(init, 3)).toBe(
      'container install-sandboxd keeps failing: restarted 3 times (last exit code 1)',
    );
  });

  test('a healthy Pod, or one restarted fewer times than the limit, is not failing', () => {
    expect(podFailure(running(4), 5)).toBeUndefined();
    expect(podFailure(pod(undefined), 5)).toBeUndefined();
  });
});

describe('podStage', () => {
  test('no Pod, or one going away, waits for its creation', () => {
    expect(podStage(undefined, volume)).toEqual({ kind: 'Waiting', message: 'creating the sandbox Pod' });
    expect(podStage(pod({ phase: 'Running' }, true), volume)).toEqual({
      kind: 'Waiting',
      message: 'creating the sandbox Pod',
    });
  });

  test('an unbound claim waits with its own message', () => {
    expect(
      podStage(running(), { ...volume, volumeBound: false, volumeMessage: 'waiting for claim' }),
    ).toEqual({ kind: 'Waiting', message: 'waiting for claim' });
  });

  test('failing wins over ready', () => {
    expect(podStage(running(5), volume)).toEqual({
      kind: 'PodFailing',
      message: 'container sandboxd keeps failing: restarted 5 times',
    });
  });

  test('Ready, or sandboxd answering before the kubelet says so, is Running', () => {
    expect(podStage(running(), volume)).toEqual({ kind: 'Running' });
    expect(podStage(running(0, false), { ...volume, sandboxdUp: true })).toEqual({ kind: 'Running' });
    expect(podStage(running(0, false), volume)).toEqual({
      kind: 'Waiting',
      message: 'waiting for the sandbox Pod to become ready',
    });
  });
});

const DISK = 'The node was low on resource: ephemeral-storage. Threshold quantity: 1Gi, available: 512Mi. ';
const evicted = (message?: string): PodView => ({
  metadata: { creationTimestamp: '2026-01-01T10:00:00Z' },
  status: { phase: 'Failed', reason: 'Evicted', ...(message === undefined ? {} : { message }) },
});

describe('eviction', () => {
  test("an evicted Pod's stage is Evicted with the kubelet's message, before any other failure", () => {
    expect(podEviction(evicted(DISK))).toBe(DISK.trim());
    expect(podStage(evicted(DISK), volume)).toEqual({ kind: 'Evicted', message: DISK.trim() });
    // Without a message the reason still says what happened.
    expect(podStage(evicted(), volume)).toEqual({ kind: 'Evicted', message: 'the kubelet evicted the Pod' });
  });

  test('a Pod failed for another reason is no eviction', () => {
    expect(podEviction(pod({ phase: 'Failed', reason: 'DeadlineExceeded' }))).toBeUndefined();
    expect(podEviction(running())).toBeUndefined();
  });

  test('a resume requested after the evicted Pod was made brings a new Pod; an older one does not', () => {
    expect(evictionResumed(evicted(DISK), '2026-01-01T10:05:00.000Z')).toBe(true);
    expect(evictionResumed(evicted(DISK), '2026-01-01T09:59:00.000Z')).toBe(false);
    expect(evictionResumed(evicted(DISK), undefined)).toBe(false);
    expect(evictionResumed(running(), '2026-01-01T10:05:00.000Z')).toBe(false);
  });
});

describe('sandboxVerdict', () => {
  const cases: [string, Stage, string | undefined, object][] = [
    [
      "a name taken by another's object: Error, Ready False NameConflict",
      { kind: 'NameConflict', message: "Secret s-sandboxd exists and is not this sandbox's" },
      'Creating',
      {
        phase: 'Error',
        message: "Secret s-sandboxd exists and is not this sandbox's",
        conditions: [
          {
            type: 'Ready',
            ok: false,
            reason: 'NameConflict',
            message: "Secret s-sandboxd exists and is not this sandbox's",
          },
        ],
      },
    ],
    [
      'template missing: Error, Ready False',
      { kind: 'TemplateNotFound', message: 'ClusterSandboxTemplate "x" not found' },
      'Creating',
      {
        phase: 'Error',
        message: 'ClusterSandboxTemplate "x" not found',
        conditions: [
          {
            type: 'Ready',
            ok: false,
            reason: 'TemplateNotFound',
            message: 'ClusterSandboxTemplate "x" not found',
          },
        ],
      },
    ],
    [
      'snapshot unavailable: Error',
      { kind: 'VolumeFailed', message: 'VolumeSnapshot "s" not found in namespace n' },
      undefined,
      {
        phase: 'Error',
        conditions: [{ type: 'Ready', ok: false, reason: 'SnapshotUnavailable' }],
      },
    ],
    [
      'expired now: Stopped with Expired and Stopped True',
      { kind: 'Expired', reason: 'TimeoutExceeded', message: 'stopped after its timeout of 1h' },
      'Running',
      {
        phase: 'Stopped',
        message: 'stopped after its timeout of 1h',
        conditions: [
          { type: 'Expired', ok: true, reason: 'TimeoutExceeded' },
          { type: 'Stopped', ok: true, reason: 'TimeoutExceeded' },
          { type: 'Ready', ok: false, reason: 'Stopped' },
        ],
      },
    ],
    [
      'stop requested, Pod still there: keeps its phase while it stops',
      { kind: 'Stopping', podGone: false, expired: false },
      'Running',
      {
        phase: 'Running',
        message: 'stopping: waiting for the Pod to terminate',
        conditions: [
          { type: 'Ready', ok: false, reason: 'Stopped' },
          { type: 'Stopped', ok: true, reason: 'StopRequested', message: 'spec.stopped is true' },
        ],
      },
    ],
    [
      'stopped, Pod gone: Stopped with the reason already recorded',
      { kind: 'Stopping', podGone: true, stoppedMessage: 'spec.stopped is true', expired: false },
      'Running',
      {
        phase: 'Stopped',
        message: 'spec.stopped is true',
        conditions: [{ type: 'Ready', ok: false, reason: 'Stopped' }],
      },
    ],
    [
      'an expired sandbox re-applied: stays Stopped, no StopRequested',
      { kind: 'Stopping', podGone: true, expired: true },
      'Stopped',
      { phase: 'Stopped', message: 'stopped', conditions: [{ type: 'Ready', ok: false, reason: 'Stopped' }] },
    ],
    [
      'waiting: Creating, Ready False PodNotReady',
      { kind: 'Waiting', message: 'creating the sandbox Pod' },
      undefined,
      {
        phase: 'Creating',
        conditions: [
          { type: 'Ready', ok: false, reason: 'PodNotReady', message: 'creating the sandbox Pod' },
          { type: 'Stopped', ok: false, reason: 'Running' },
        ],
      },
    ],
    [
      'pod failing: Error, Ready False PodFailing',
      { kind: 'PodFailing', message: 'the sandbox Pod failed: Evicted' },
      'Running',
      {
        phase: 'Error',
        message: 'the sandbox Pod failed: Evicted',
        conditions: [{ type: 'Ready', ok: false, reason: 'PodFailing' }],
      },
    ],
    [
      "evicted: Error, Ready False Evicted with the kubelet's message, and an Evicted event",
      {
        kind: 'Evicted',
        message: 'Pod ephemeral local storage usage exceeds the total limit of containers 10Gi.',
      },
      'Running',
      {
        phase: 'Error',
        message:
          'the kubelet evicted the sandbox Pod: Pod ephemeral local storage usage exceeds the total limit of containers 10Gi.; resume the sandbox to start it again',
        conditions: [
          {
            type: 'Ready',
            ok: false,
            reason: 'Evicted',
            message: 'Pod ephemeral local storage usage exceeds the total limit of containers 10Gi.',
          },
        ],
        event: { reason: 'Evicted' },
      },
    ],
    [
      'running',
      { kind: 'Running' },
      'Creating',
      {
        phase: 'Running',
        message: 'the sandbox is running',
        conditions: [
          { type: 'Ready', ok: true, reason: 'PodReady' },
          { type: 'Stopped', ok: false, reason: 'Running' },
        ],
      },
    ],
  ];
  test.each(cases)('%s', (_name, stage, previous, expected) => {
    expect(sandboxVerdict(stage, previous as never)).toMatchObject(expected);
  });

  test('a stop with no phase yet reads Creating', () => {
    expect(sandboxVerdict({ kind: 'Stopping', podGone: false, expired: false }, undefined).phase).toBe(
      'Creating',
    );
  });
});
