import type { V1Container } from '@kubernetes/client-node';
import { describe, expect, test } from 'vitest';
import {
  crashLoopBackOff,
  podStatus,
  type ContainerState,
  type PodStatusInput,
  type Transition,
} from './status.ts';

const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
const init: V1Container = { name: 'install', image: 'svc' };
const main: V1Container = { name: 'main', image: 'busybox' };
const side: V1Container = { name: 'side' };

function input(states: ContainerState[], over: Partial<PodStatusInput> = {}): PodStatusInput {
  return {
    initContainers: [init],
    containers: [main, side],
    states: new Map(states.map((s) => [s.name, s])),
    failed: undefined,
    initialized: true,
    startTime: t(0),
    podIP: '10.88.0.2',
    transitions: new Map(),
    now: t(10),
    ...over,
  };
}

const fresh = (name: string): ContainerState => ({ name, restartCount: 0, ready: false });
const running = (name: string, pid?: number): ContainerState => ({
  name,
  restartCount: 0,
  ready: true,
  running: { startedAt: t(1), ...(pid ? { pid } : {}) },
});
const exited = (name: string, exitCode: number): ContainerState => ({
  name,
  restartCount: 0,
  ready: false,
  terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: t(1), finishedAt: t(2) },
});
const completedInit = exited('install', 0);

describe('podStatus', () => {
  test('Pending while the init containers run: containers wait on PodInitializing', () => {
    const { status } = podStatus(
      input([running('install', 7), fresh('main'), fresh('side')], { initialized: false }),
    );
    expect(status.phase).toBe('Pending');
    expect(status.message).toBeUndefined();
    expect(status.initContainerStatuses).toEqual([
      {
        name: 'install',
        image: 'svc',
        imageID: '',
        containerID: 'devnode://7',
        ready: true,
        started: true,
        restartCount: 0,
        state: { running: { startedAt: t(1) } },
        lastState: {},
      },
    ]);
    expect(status.containerStatuses!.map((c) => c.state)).toEqual([
      { waiting: { reason: 'PodInitializing', message: undefined } },
      { waiting: { reason: 'PodInitializing', message: undefined } },
    ]);
    expect(status.containerStatuses!.map((c) => [c.image, c.started, c.containerID])).toEqual([
      ['busybox', false, undefined],
      ['', false, undefined],
    ]);
    expect(status.conditions!.map((c) => [c.type, c.status])).toEqual([
      ['PodScheduled', 'True'],
      ['Initialized', 'False'],
      ['ContainersReady', 'False'],
      ['Ready', 'False'],
    ]);
  });

  test('Running once initialized; Ready only when every container is', () => {
    const some = podStatus(input([completedInit, running('main', 9), { ...running('side'), ready: false }]));
    expect(some.status.phase).toBe('Running');
    expect(some.status.conditions!.map((c) => c.status)).toEqual(['True', 'True', 'False', 'False']);
    // A running container whose pid is not known yet has no containerID.
    expect(some.status.containerStatuses!.map((c) => c.containerID)).toEqual(['devnode://9', undefined]);
    const all = podStatus(input([completedInit, running('main', 9), running('side', 10)]));
    expect(all.status.conditions!.map((c) => c.status)).toEqual(['True', 'True', 'True', 'True']);
    expect(all.status).toMatchObject({
      hostIP: '127.0.0.1',
      podIP: '10.88.0.2',
      podIPs: [{ ip: '10.88.0.2' }],
      startTime: t(0),
    });
  });

  test('Succeeded when every container exited 0; Failed when one did not', () => {
    const ok = podStatus(input([completedInit, exited('main', 0), exited('side', 0)]));
    expect(ok.status.phase).toBe('Succeeded');
    expect(ok.status.containerStatuses![0]!.state).toEqual({
      terminated: { exitCode: 0, reason: 'Completed', startedAt: t(1), finishedAt: t(2) },
    });
    const bad = podStatus(input([completedInit, exited('main', 0), exited('side', 3)]));
    expect(bad.status.phase).toBe('Failed');
    expect(bad.status.containerStatuses![1]!.state!.terminated).toMatchObject({
      exitCode: 3,
      reason: 'Error',
    });
    // One still running: the Pod runs.
    expect(podStatus(input([completedInit, exited('main', 3), running('side')])).status.phase).toBe(
      'Running',
    );
  });

  test('Failed with its message when devnode gave up; containers never to start say why', () => {
    const why = 'init container install failed with exit code 2';
    const { status } = podStatus(
      input([exited('install', 2), fresh('main'), fresh('side')], { failed: why, initialized: false }),
    );
    expect(status.phase).toBe('Failed');
    expect(status.message).toBe(why);
    expect(status.containerStatuses!.map((c) => c.state)).toEqual([
      { waiting: { reason: 'CreateContainerError', message: why } },
      { waiting: { reason: 'CreateContainerError', message: why } },
    ]);
    expect(status.initContainerStatuses![0]!.state!.terminated).toMatchObject({ exitCode: 2 });
  });

  test('a container waiting out its restart back-off is CrashLoopBackOff, with the last run', () => {
    const pod = { name: 'sbx-a', namespace: 'team', uid: 'u-1' };
    const crashed: ContainerState = {
      name: 'main',
      restartCount: 3,
      ready: false,
      waiting: crashLoopBackOff(8_000, 'main', pod),
      last: { exitCode: 1, reason: 'Error', startedAt: t(3), finishedAt: t(4) },
    };
    const { status } = podStatus(input([completedInit, crashed, running('side')]));
    expect(status.phase).toBe('Running');
    expect(status.containerStatuses![0]).toEqual({
      name: 'main',
      image: 'busybox',
      imageID: '',
      containerID: undefined,
      restartCount: 3,
      started: false,
      ready: false,
      // What a kubelet reports, not PodInitializing: the container ran and is to run again.
      state: {
        waiting: {
          reason: 'CrashLoopBackOff',
          message: 'back-off 8s restarting failed container=main pod=sbx-a_team(u-1)',
        },
      },
      lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: t(3), finishedAt: t(4) } },
    });
    const again = podStatus(
      input([completedInit, { ...crashed, running: { startedAt: t(5), pid: 11 } }, running('side')]),
    );
    expect(again.status.containerStatuses![0]).toMatchObject({
      restartCount: 3,
      state: { running: { startedAt: t(5) } },
      lastState: { terminated: { exitCode: 1 } },
    });
  });

  test("the back-off message says the delay as the kubelet's Go durations do", () => {
    const pod = { name: 'p', namespace: 'ns', uid: 'u' };
    const delays = [1_000, 2_000, 30_000, 60_000, 80_000, 300_000, 1_500].map(
      (ms) => crashLoopBackOff(ms, 'c', pod).message.split(' ')[1],
    );
    expect(delays).toEqual(['1s', '2s', '30s', '1m0s', '1m20s', '5m0s', '1.5s']);
  });

  test('a condition keeps its transition time until it flips', () => {
    const states = [completedInit, { ...running('main'), ready: false }, running('side')];
    const first = podStatus(input(states, { now: t(10) }));
    expect(first.status.conditions!.map((c) => c.lastTransitionTime)).toEqual([t(10), t(10), t(10), t(10)]);
    const same = podStatus(input(states, { now: t(20), transitions: first.transitions }));
    expect(same.status.conditions!.map((c) => c.lastTransitionTime)).toEqual([t(10), t(10), t(10), t(10)]);
    const ready = podStatus(
      input([completedInit, running('main'), running('side')], { now: t(30), transitions: same.transitions }),
    );
    expect(ready.status.conditions!.map((c) => [c.type, c.lastTransitionTime])).toEqual([
      ['PodScheduled', t(10)],
      ['Initialized', t(10)],
      ['ContainersReady', t(30)],
      ['Ready', t(30)],
    ]);
    expect(ready.transitions.get('Ready')).toEqual<Transition>({ ok: true, at: t(30) });
    // The input's map is not changed: the caller keeps the returned one.
    expect(same.transitions.get('Ready')).toEqual<Transition>({ ok: false, at: t(10) });
  });
});
