import type { V1Container, V1EnvVar, V1Pod, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import {
  Labels,
  SandboxPod,
  sandboxObjectsName,
  sandboxdSecretName,
  workspaceClaimName,
  type Sandbox,
  type SandboxTemplateSpec,
} from '../../core/index.ts';
import type { OperatorSettings } from '../settings.ts';
import { owned } from './meta.ts';

function resources(sandbox: Sandbox, template: SandboxTemplateSpec): V1Container['resources'] {
  const r = { ...template.resources, ...sandbox.spec.resources };
  const clean = (o?: { cpu?: string | number; memory?: string | number }) =>
    o && Object.fromEntries(Object.entries(o).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])));
  return { requests: clean(r.requests), limits: clean(r.limits) };
}

/** Environment: the template's, then the sandbox's, then credentials as secretKeyRefs. */
function environment(sandbox: Sandbox, template: SandboxTemplateSpec): V1EnvVar[] {
  const byName = new Map<string, V1EnvVar>();
  for (const e of [...(template.env ?? []), ...(sandbox.spec.env ?? [])]) byName.set(e.name, e);
  for (const c of sandbox.spec.credentials?.env ?? [])
    byName.set(c.name, { name: c.name, valueFrom: { secretKeyRef: { name: c.secretName, key: c.key } } });
  const maxInvokes =
    sandbox.status?.agentConfigure?.maxConcurrentInvokes ??
    sandbox.spec.harness?.agent?.maxConcurrentInvokes ??
    template.agent?.maxConcurrentInvokes ??
    1;
  const sandboxd: V1EnvVar[] = [
    { name: 'SANDBOXD_LISTEN', value: `0.0.0.0:${SandboxPod.port}` },
    { name: 'SANDBOXD_TOKEN_FILE', value: `${SandboxPod.tokenDir}/${SandboxPod.tokenKey}` },
    { name: 'SANDBOXD_WORKSPACE', value: '/workspace' },
    { name: 'SANDBOXD_MAX_CONCURRENT_INVOKES', value: String(maxInvokes) },
  ];
  return [...byName.values(), ...sandboxd];
}

/**
 * The sandbox Pod. An init container copies sandboxd out of the svc image into an
 * emptyDir; the main container runs it from there in the template's image, and sandboxd
 * starts the template's command. No service-account token, no privilege escalation, no
 * capabilities; the Pod's processes share one PID namespace so the pause process reaps.
 */
export function sandboxPod(
  sandbox: Sandbox,
  template: SandboxTemplateSpec,
  settings: OperatorSettings,
): V1Pod {
  const name = sandbox.metadata.name!;
  // A sandbox that claimed a warm-pool member keeps the member's Pod and claim names.
  const objects = sandboxObjectsName(sandbox);
  const credentialFiles = sandbox.spec.credentials?.files ?? [];
  const volumes: V1Volume[] = [
    { name: 'workspace', persistentVolumeClaim: { claimName: workspaceClaimName(objects) } },
    { name: 'svc-bin', emptyDir: {} },
    { name: 'svc-token', secret: { secretName: sandboxdSecretName(objects), defaultMode: 0o440 } },
    ...credentialFiles.map((f, i) => ({
      name: `credential-${i}`,
      secret: { secretName: f.secretName, defaultMode: 0o440 },
    })),
  ];
  const mounts: V1VolumeMount[] = [
    { name: 'workspace', mountPath: '/workspace' },
    { name: 'svc-bin', mountPath: SandboxPod.binDir, readOnly: true },
    { name: 'svc-token', mountPath: SandboxPod.tokenDir, readOnly: true },
    ...credentialFiles.map((f, i) => ({ name: `credential-${i}`, mountPath: f.mountPath, readOnly: true })),
  ];
  const hardened: V1Container['securityContext'] = {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  };
  const command = [...(template.command ?? []), ...(template.args ?? [])];
  const memory = sandbox.spec.mode === 'agent' ? settings.agentMemorySidecar : undefined;
  const env = environment(sandbox, template);
  if (memory) env.unshift({ name: 'MEM0_BASE_URL', value: `http://${MEMORY_ADDRESS}` });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...owned(sandbox, objects),
      labels: { [Labels.sandbox]: name, [Labels.mode]: sandbox.spec.mode },
    },
    spec: {
      hostname: name,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      shareProcessNamespace: true,
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      securityContext: { runAsNonRoot: false, fsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } },
      initContainers: [
        {
          name: SandboxPod.installContainer,
          image: settings.sandboxdImage,
          command: ['cp', settings.sandboxdPath, `${SandboxPod.binDir}/sandboxd`],
          volumeMounts: [{ name: 'svc-bin', mountPath: SandboxPod.binDir }],
          securityContext: hardened,
        },
      ],
      containers: [
        {
          name: SandboxPod.container,
          image: sandbox.spec.image?.repository ?? template.image,
          command: [`${SandboxPod.binDir}/sandboxd`, ...(command.length > 0 ? ['--', ...command] : [])],
          workingDir: '/workspace',
          env,
          ports: [{ name: 'sandboxd', containerPort: SandboxPod.port, protocol: 'TCP' }],
          readinessProbe: {
            httpGet: { path: '/healthz', port: SandboxPod.port as never },
            periodSeconds: 2,
          },
          resources: resources(sandbox, template),
          volumeMounts: mounts,
          securityContext: hardened,
        },
        ...(memory ? [memoryContainer(memory, hardened)] : []),
      ],
      volumes,
    },
  };
}

/** Where the agent memory sidecar listens; every container of the Pod shares its loopback. */
export const MEMORY_ADDRESS = '127.0.0.1:11434';
/** The memory store's data, inside the workspace so it survives stop, resume and clone. */
export const MEMORY_DATA_DIR = '/workspace/.agenttier/memory';

/** `optional.agentMemorySidecar`: a memory service beside the agent, agent-mode Pods only. */
function memoryContainer(
  memory: NonNullable<OperatorSettings['agentMemorySidecar']>,
  hardened: V1Container['securityContext'],
): V1Container {
  return {
    name: 'agent-memory',
    image: memory.image,
    ...(memory.command.length > 0 ? { command: memory.command } : {}),
    env: [
      { name: 'MEMORY_LISTEN', value: MEMORY_ADDRESS },
      { name: 'MEMORY_DATA_DIR', value: MEMORY_DATA_DIR },
    ],
    volumeMounts: [{ name: 'workspace', mountPath: '/workspace' }],
    securityContext: hardened,
  };
}
