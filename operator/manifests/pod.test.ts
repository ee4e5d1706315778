import { describe, expect, test } from 'vitest';
import type { Sandbox } from '../../core/index.ts';
import { sandboxPod } from './pod.ts';
import type { OperatorSettings } from '../settings.ts';

const settings: OperatorSettings = {
  sandboxdImage: 'svc:test',
  sandboxdPath: '/usr/local/bin/sandboxd',
  ingressClass: 'nginx',
  apiNamespace: 'svc-system',
  apiPodLabels: {},
  snapshotWaitSeconds: 60,
  maxRestarts: 5,
};
const sandbox = (mode: 'code' | 'agent'): Sandbox => ({
  apiVersion: 'svc.io/v1alpha1',
  kind: 'Sandbox',
  metadata: { name: 's', namespace: 'n', uid: 'u' },
  spec: { mode, templateRef: { name: 't', kind: 'ClusterSandboxTemplate' }, stopped: false },
});
const template = { image: 'debian:bookworm' };
const withMemory = { ...settings, agentMemorySidecar: { image: 'mem:1', command: ['mem', 'serve'] } };

describe('agent memory sidecar', () => {
  test('off by default: one container, no MEM0_BASE_URL', () => {
    const pod = sandboxPod(sandbox('agent'), template, settings);
    expect(pod.spec?.containers.map((c) => c.name)).toEqual(['sandbox']);
    expect(pod.spec?.containers[0]?.env?.some((e) => e.name === 'MEM0_BASE_URL')).toBe(false);
  });

  test('enabled: agent Pods get it on 127.0.0.1:11434 with data in /workspace/.agenttier/memory', () => {
    const pod = sandboxPod(sandbox('agent'), template, withMemory);
    const [main, memory] = pod.spec!.containers;
    expect(memory).toMatchObject({
      name: 'agent-memory',
      image: 'mem:1',
      command: ['mem', 'serve'],
      env: [
        { name: 'MEMORY_LISTEN', value: '127.0.0.1:11434' },
        { name: 'MEMORY_DATA_DIR', value: '/workspace/.agenttier/memory' },
      ],
      volumeMounts: [{ name: 'workspace', mountPath: '/workspace' }],
    });
    expect(main?.env).toContainEqual({ name: 'MEM0_BASE_URL', value: 'http://127.0.0.1:11434' });
  });

  test('enabled: code-mode Pods never get it', () => {
    const pod = sandboxPod(sandbox('code'), template, withMemory);
    expect(pod.spec?.containers.map((c) => c.name)).toEqual(['sandbox']);
    expect(pod.spec?.containers[0]?.env?.some((e) => e.name === 'MEM0_BASE_URL')).toBe(false);
  });
});

describe("sandboxd's own variables", () => {
  test('no SANDBOXD_ name from the template, the sandbox or a credential reaches the Pod; sandboxd sets its own, last', () => {
    const own = sandbox('code');
    own.spec.env = [
      { name: 'SANDBOXD_TOKEN', value: 'chosen' },
      { name: 'A', value: '1' },
    ];
    own.spec.credentials = { env: [{ name: 'SANDBOXD_LISTEN', secretName: 's', key: 'k' }] };
    const pod = sandboxPod(own, { ...template, env: [{ name: 'SANDBOXD_WORKSPACE', value: '/' }] }, settings);
    const env = pod.spec!.containers[0]!.env!;
    expect(env.map((e) => e.name)).toEqual([
      'A',
      'SANDBOXD_LISTEN',
      'SANDBOXD_TOKEN_FILE',
      'SANDBOXD_WORKSPACE',
      'SANDBOXD_MAX_CONCURRENT_INVOKES',
      'SANDBOXD_RUN_AS_USER',
      'SANDBOXD_RUN_AS_GROUP',
    ]);
    expect(env.find((e) => e.name === 'SANDBOXD_LISTEN')).toEqual({
      name: 'SANDBOXD_LISTEN',
      value: '0.0.0.0:9000',
    });
  });

  test('runs settings reach sandboxd as SANDBOXD_RUN_BUFFER_BYTES and SANDBOXD_RUN_RETENTION_SECONDS, only when set', () => {
    const runs = { bufferBytes: 262144, retentionSeconds: 60 };
    const env = sandboxPod(sandbox('code'), template, { ...settings, runs }).spec!.containers[0]!.env!;
    expect(env).toContainEqual({ name: 'SANDBOXD_RUN_BUFFER_BYTES', value: '262144' });
    expect(env).toContainEqual({ name: 'SANDBOXD_RUN_RETENTION_SECONDS', value: '60' });
    const plain = sandboxPod(sandbox('code'), template, settings).spec!.containers[0]!.env!;
    expect(
      plain.some((e) => e.name.startsWith('SANDBOXD_RUN_B') || e.name.startsWith('SANDBOXD_RUN_R')),
    ).toBe(false);
  });
});

describe('limits that hold', () => {
  test('`limits: {}` keeps the template limits; every container is bounded; the emptyDir too', () => {
    const limited = {
      image: 'debian:bookworm',
      resources: { requests: { cpu: '250m', memory: '512Mi' }, limits: { cpu: '2', memory: '4Gi' } },
    };
    const s = sandbox('agent');
    s.spec.resources = { limits: {} };
    const pod = sandboxPod(s, limited, withMemory);
    expect(pod.spec!.containers[0]!.resources).toEqual({
      requests: { cpu: '250m', memory: '512Mi', 'ephemeral-storage': '0' },
      limits: { cpu: '2', memory: '4Gi', 'ephemeral-storage': '10Gi' },
    });
    const all = [...pod.spec!.initContainers!, ...pod.spec!.containers];
    expect(all.map((c) => c.name)).toEqual(['install-sandboxd', 'sandbox', 'agent-memory']);
    for (const c of all)
      expect(Object.keys(c.resources?.limits ?? {}).sort(), c.name).toEqual([
        'cpu',
        'ephemeral-storage',
        'memory',
      ]);
    for (const v of pod.spec!.volumes!.filter((v) => v.emptyDir))
      expect(v.emptyDir!.sizeLimit, v.name).toBe('64Mi');
  });
});

describe('user code cannot touch sandboxd', () => {
  test('sandboxd is root with six capabilities; its processes run as 1000:1000; the token is 0400 with no fsGroup', () => {
    const s = sandbox('agent');
    s.spec.credentials = { files: [{ secretName: 'c', mountPath: '/creds' }] };
    const pod = sandboxPod(s, template, withMemory);
    const [main, memory] = pod.spec!.containers;
    expect(pod.spec!.securityContext).toEqual({ seccompProfile: { type: 'RuntimeDefault' } });
    expect(main!.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      seccompProfile: { type: 'RuntimeDefault' },
      runAsUser: 0,
      runAsGroup: 0,
      runAsNonRoot: false,
      capabilities: { drop: ['ALL'], add: ['SETUID', 'SETGID', 'CHOWN', 'KILL', 'DAC_OVERRIDE', 'FOWNER'] },
    });
    expect(main!.env).toContainEqual({ name: 'SANDBOXD_RUN_AS_USER', value: '1000' });
    expect(main!.env).toContainEqual({ name: 'SANDBOXD_RUN_AS_GROUP', value: '1000' });
    const user = { allowPrivilegeEscalation: false, runAsNonRoot: true, capabilities: { drop: ['ALL'] } };
    expect(memory!.securityContext).toMatchObject({ ...user, runAsUser: 1000, runAsGroup: 1000 });
    expect(pod.spec!.initContainers![0]!.securityContext).toMatchObject({ ...user, runAsUser: 65532 });
    const volumes = Object.fromEntries(pod.spec!.volumes!.map((v) => [v.name, v.secret?.defaultMode]));
    expect(volumes).toMatchObject({ 'svc-token': 0o400, 'credential-0': 0o444 });
  });

  test("the template's runAsUser and runAsGroup reach sandboxd and the sidecar", () => {
    const pod = sandboxPod(sandbox('agent'), { ...template, runAsUser: 2000, runAsGroup: 3000 }, withMemory);
    const [main, memory] = pod.spec!.containers;
    expect(main!.env).toContainEqual({ name: 'SANDBOXD_RUN_AS_USER', value: '2000' });
    expect(main!.env).toContainEqual({ name: 'SANDBOXD_RUN_AS_GROUP', value: '3000' });
    expect(memory!.securityContext).toMatchObject({ runAsUser: 2000, runAsGroup: 3000, runAsNonRoot: true });
    const root = sandboxPod(sandbox('code'), { ...template, runAsUser: 0 }, settings);
    expect(root.spec!.containers[0]!.env).toContainEqual({ name: 'SANDBOXD_RUN_AS_USER', value: '0' });
  });
});

describe('sandboxd delivery', () => {
  test('by default an init container copies sandboxd into an emptyDir the main container runs it from', () => {
    const pod = sandboxPod(sandbox('code'), template, settings);
    expect(pod.spec?.initContainers?.map((c) => [c.name, c.image, c.command])).toEqual([
      ['install-sandboxd', 'svc:test', ['cp', '/usr/local/bin/sandboxd', '/opt/svc/sandboxd']],
    ]);
    expect(pod.spec?.volumes).toContainEqual({ name: 'svc-bin', emptyDir: { sizeLimit: '64Mi' } });
    expect(pod.spec?.containers[0]?.volumeMounts).toContainEqual({
      name: 'svc-bin',
      mountPath: '/opt/svc',
      readOnly: true,
    });
    expect(pod.spec?.containers[0]?.command).toEqual(['/opt/svc/sandboxd']);
  });

  test('imageVolume: the svc image as an image volume, the folder of sandboxd alone mounted, no init container', () => {
    const pod = sandboxPod(sandbox('code'), template, { ...settings, sandboxdDelivery: 'imageVolume' });
    expect(pod.spec?.initContainers).toBeUndefined();
    expect(pod.spec?.volumes).toContainEqual({
      name: 'svc-bin',
      image: { reference: 'svc:test', pullPolicy: 'IfNotPresent' },
    });
    expect(pod.spec?.containers[0]?.volumeMounts).toContainEqual({
      name: 'svc-bin',
      mountPath: '/opt/svc',
      subPath: 'usr/local/bin',
      readOnly: true,
    });
    expect(pod.spec?.containers[0]?.command).toEqual(['/opt/svc/sandboxd']);
  });

  test('csi: sandboxd of one digest as a read-only inline CSI volume at /opt/svc, no init container', () => {
    const sha256 = 'ab'.repeat(32);
    const pod = sandboxPod(sandbox('code'), template, {
      ...settings,
      sandboxdDelivery: 'csi',
      sandboxdCsi: { driver: 'sandboxd.svc.io', sha256 },
    });
    expect(pod.spec?.initContainers).toBeUndefined();
    expect(pod.spec?.volumes).toContainEqual({
      name: 'svc-bin',
      csi: { driver: 'sandboxd.svc.io', readOnly: true, volumeAttributes: { sha256 } },
    });
    expect(pod.spec?.containers[0]?.volumeMounts).toContainEqual({
      name: 'svc-bin',
      mountPath: '/opt/svc',
      readOnly: true,
    });
    expect(pod.spec?.containers[0]?.command).toEqual(['/opt/svc/sandboxd']);
    // No helper container at all: the Pod's only container is the sandbox's.
    expect(pod.spec?.containers.map((c) => c.name)).toEqual(['sandbox']);
  });

  test('csi without the digest is a programming error, not a Pod that cannot start', () => {
    expect(() => sandboxPod(sandbox('code'), template, { ...settings, sandboxdDelivery: 'csi' })).toThrow(
      /sandboxdCsi/,
    );
  });
});
