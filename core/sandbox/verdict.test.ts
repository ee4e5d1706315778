import { describe, expect, test } from 'vitest';
import {
  endedPodResumed,
  podEnd,
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

describe('an ended Pod', () => {
  const KUBELET = 'Pod ephemeral local storage usage exceeds the total limit of containers 64Mi.';
  /** What the real kubelet leaves when sandboxd exits 0 on the eviction's SIGTERM. */
  const succeeded = pod({ phase: 'Succeeded', conditions: [{ type: 'Ready', status: 'False' }] });

  test("a Pod the kubelet marked Failed/Evicted is Evicted with the kubelet's message, before any other failure", () => {
    expect(podStage(evicted(DISK), volume)).toEqual({ kind: 'Evicted', message: DISK.trim() });
    // Without a message the reason still says what happened.
    expect(podStage(evicted(), volume)).toEqual({ kind: 'Evicted', message: 'the kubelet evicted the Pod' });
  });

  test("a Succeeded Pod with the kubelet's Evicted Event is Evicted with the Event's message", () => {
    expect(podStage(succeeded, { ...volume, eviction: { event: KUBELET } })).toEqual({
      kind: 'Evicted',
      message: KUBELET,
    });
    // The Event wins over what the Pod says of itself.
    expect(podEnd(evicted('low memory'), { event: ` ${KUBELET} ` })).toEqual({
      kind: 'Evicted',
      message: KUBELET,
    });
  });

  test("once the Event is gone, the sandbox's own Ready=False Evicted message stands", () => {
    expect(podEnd(succeeded, { recorded: KUBELET })).toEqual({ kind: 'Evicted', message: KUBELET });
    expect(podEnd(succeeded, { event: 'newer', recorded: KUBELET })).toEqual({
      kind: 'Evicted',
      message: 'newer',
    });
  });

  test('a Pod ended without an eviction known says its phase and its own reason, or that it gave none', () => {
    expect(podStage(succeeded, volume)).toEqual({
      kind: 'PodEnded',
      message: 'the sandbox Pod ended (phase Succeeded) and the kubelet gave no reason',
    });
    expect(
      podStage(
        pod({
          phase: 'Failed',
          reason: 'Terminated',
          message: 'Pod was terminated in response to imminent node shutdown.',
        }),
        volume,
      ),
    ).toEqual({
      kind: 'PodEnded',
      message:
        'the sandbox Pod ended (phase Failed): Terminated: Pod was terminated in response to imminent node shutdown.',
    });
    expect(podEnd(pod({ phase: 'Failed', message: 'gone' }))).toEqual({
      kind: 'PodEnded',
      message: 'the sandbox Pod ended (phase Failed): gone',
    });
  });

  test('a Pod that has not ended is none of this, whatever Event or condition there is', () => {
    expect(podEnd(running(), { event: KUBELET, recorded: KUBELET })).toBeUndefined();
    expect(podEnd(pod({ phase: 'Pending' }), { event: KUBELET })).toBeUndefined();
    expect(podEnd(pod(undefined))).toBeUndefined();
    // An ended Pod going away (deleted) is waited for, not judged.
    expect(podStage(pod({ phase: 'Succeeded' }, true), { ...volume, eviction: { event: KUBELET } })).toEqual({
      kind: 'Waiting',
      message: 'creating the sandbox Pod',
    });
  });

  test('a resume requested after the ended Pod was made brings a new Pod; an older one does not', () => {
    const ended = { ...succeeded, metadata: { creationTimestamp: '2026-01-01T10:00:00Z' } };
    for (const p of [evicted(DISK), ended]) {
      expect(endedPodResumed(p, '2026-01-01T10:05:00.000Z')).toBe(true);
      expect(endedPodResumed(p, '2026-01-01T09:59:00.000Z')).toBe(false);
      expect(endedPodResumed(p, undefined)).toBe(false);
    }
    expect(endedPodResumed(running(), '2026-01-01T10:05:00.000Z')).toBe(false);
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
      { kind: 'PodFailing', message: 'container sandboxd keeps failing: restarted 5 times' },
      'Running',
      {
        phase: 'Error',
        message: 'container sandboxd keeps failing: restarted 5 times',
        conditions: [{ type: 'Ready', ok: false, reason: 'PodFailing' }],
      },
    ],
    [
      'pod ended, no eviction known: Error, Ready False PodEnded, and a PodEnded event',
      { kind: 'PodEnded', message: 'the sandbox Pod ended (phase Succeeded) and the kubelet gave no reason' },
      'Running',
      {
        phase: 'Error',
        message:
          'the sandbox Pod ended (phase Succeeded) and the kubelet gave no reason; resume the sandbox to start it again',
        conditions: [
          {
            type: 'Ready',
            ok: false,
            reason: 'PodEnded',
            message: 'the sandbox Pod ended (phase Succeeded) and the kubelet gave no reason',
          },
        ],
        event: { reason: 'PodEnded' },
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
      "a clone's agent install not rerun yet: Creating, Ready False AgentInstalling",
      { kind: 'Installing', message: 'installing the agent harness' },
      'Creating',
      {
        phase: 'Creating',
        message: 'installing the agent harness',
        conditions: [
          { type: 'Ready', ok: false, reason: 'AgentInstalling', message: 'installing the agent harness' },
          { type: 'Stopped', ok: false, reason: 'Running' },
        ],
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

  test('every stage has a case above', () => {
    const kinds: Record<Stage['kind'], true> = {
      TemplateNotFound: true,
      VolumeFailed: true,
      Expired: true,
      Stopping: true,
      Waiting: true,
      Installing: true,
      PodFailing: true,
      Evicted: true,
      PodEnded: true,
      NameConflict: true,
      Running: true,
    };
    expect(new Set(cases.map(([, stage]) => stage.kind))).toEqual(new Set(Object.keys(kinds)));
  });

  test('only a stop still waiting for its Pod keeps the phase before it', () => {
    const stopping: Stage = { kind: 'Stopping', podGone: false, expired: false };
    for (const previous of ['Creating', 'Running', 'Error', 'Stopped'] as const)
      expect(sandboxVerdict(stopping, previous).phase).toBe(previous);
    for (const [, stage] of cases.filter(([, s]) => s.kind !== 'Stopping'))
      expect(sandboxVerdict(stage, 'Running').phase).toBe(sandboxVerdict(stage, 'Error').phase);
  });

  test('a stop with no phase yet reads Creating', () => {
    expect(sandboxVerdict({ kind: 'Stopping', podGone: false, expired: false }, undefined).phase).toBe(
      'Creating',
    );
  });
});
