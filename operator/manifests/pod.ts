import { posix } from 'node:path';
import type { V1Container, V1EnvVar, V1Pod, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import {
  Labels,
  SANDBOXD_ENV_PREFIX,
  SandboxPod,
  sandboxObjectsName,
  sandboxResources,
  sandboxdSecretName,
  workspaceClaimName,
  type Sandbox,
  type SandboxTemplateSpec,
} from '../../core/index.ts';
import type { OperatorSettings } from '../settings.ts';
import { isolation } from './isolation.ts';
import { owned } from './meta.ts';
import { INSTALL_USER, sandboxUser, sandboxdSecurity, userSecurity } from './security.ts';

/**
 * Bounds of the Pod's helper containers, which the sandbox's own limits do not cover: the
 * init container only copies sandboxd; the memory sidecar is the operator's choice, not the
 * sandbox's. Requests stay small (Kubernetes would copy an unset request from the limit).
 */
export const HELPER_RESOURCES = {
  install: {
    requests: { cpu: '10m', memory: '16Mi', 'ephemeral-storage': '0' },
    limits: { cpu: '500m', memory: '128Mi', 'ephemeral-storage': '64Mi' },
  },
  memory: {
    requests: { cpu: '50m', memory: '128Mi', 'ephemeral-storage': '0' },
    limits: { cpu: '1', memory: '1Gi', 'ephemeral-storage': '1Gi' },
  },
} as const satisfies Record<string, V1Container['resources']>;

/** The `svc-bin` emptyDir's bound: room for the sandboxd executable, about 7 MiB. */
export const SVC_BIN_SIZE_LIMIT = '64Mi';

/** Environment: the template's, then the sandbox's, then credentials as secretKeyRefs. */
function environment(
  sandbox: Sandbox,
  template: SandboxTemplateSpec,
  settings: OperatorSettings,
): V1EnvVar[] {
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
    { name: 'SANDBOXD_RUN_AS_USER', value: String(sandboxUser(template).uid) },
    { name: 'SANDBOXD_RUN_AS_GROUP', value: String(sandboxUser(template).gid) },
  ];
  const runs = settings.runs;
  if (runs?.bufferBytes)
    sandboxd.push({ name: 'SANDBOXD_RUN_BUFFER_BYTES', value: String(runs.bufferBytes) });
  if (runs?.retentionSeconds)
    sandboxd.push({ name: 'SANDBOXD_RUN_RETENTION_SECONDS', value: String(runs.retentionSeconds) });
  // sandboxd's settings are its own: a name of theirs from the template, the sandbox or a
  // credential (refused at admission; a Sandbox older than that rule may still carry one)
  // is dropped, so that e.g. SANDBOXD_TOKEN cannot replace the token file.
  const proxy = proxyEnvironment(template, settings);
  const ours = new Set(proxy.map((e) => e.name));
  const own = [...byName.values()].filter(
    (e) => !e.name.startsWith(SANDBOXD_ENV_PREFIX) && !ours.has(e.name),
  );
  return [...own, ...proxy, ...sandboxd];
}

/**
 * An `allowlist` sandbox's way out: the gateway as its HTTP and HTTPS proxy, in both the
 * upper- and lower-case spellings tools read (curl reads only `http_proxy` in lower case),
 * and never for the sandbox itself. These win over a template's or Sandbox's own.
 */
function proxyEnvironment(template: SandboxTemplateSpec, settings: OperatorSettings): V1EnvVar[] {
  const gateway = settings.egress?.gateway;
  if (template.network?.egress !== 'allowlist' || !gateway) return [];
  const values = {
    HTTP_PROXY: gateway.proxyUrl,
    HTTPS_PROXY: gateway.proxyUrl,
    NO_PROXY: 'localhost,127.0.0.1,::1',
  };
  return Object.entries(values).flatMap(([name, value]) => [
    { name, value },
    { name: name.toLowerCase(), value },
  ]);
}

/**
 * Where the main container finds sandboxd (`/opt/svc/sandboxd` in every case). By default an
 * emptyDir the init container copies it into. With `sandboxdDelivery: imageVolume`, the svc
 * image itself as an `image` volume (Kubernetes 1.35 beta, on by default; the runtime must
 * support it: containerd 2.1+, CRI-O 1.31+), of which only sandboxd's folder is mounted
 * (subPath). With `csi`, a read-only CSI ephemeral inline volume of the chart's node plugin
 * (sandboxd-csi): the node's folder holding that digest's sandboxd alone, bound read-only; any
 * runtime. Either way no init container starts: the kubelet starts the main container in the
 * same pass as the Pod's sandbox instead of the relist after it (bench/README.md, the trace of
 * bench-tti).
 */
function sandboxdVolume(settings: OperatorSettings): V1Volume {
  if (settings.sandboxdDelivery === 'imageVolume')
    return { name: 'svc-bin', image: { reference: settings.sandboxdImage, pullPolicy: 'IfNotPresent' } };
  if (settings.sandboxdDelivery === 'csi') {
    const csi = settings.sandboxdCsi;
    if (!csi) throw new Error('sandboxdDelivery csi needs settings.sandboxdCsi (driver and sha256)');
    return {
      name: 'svc-bin',
      csi: { driver: csi.driver, readOnly: true, volumeAttributes: { sha256: csi.sha256 } },
    };
  }
  return { name: 'svc-bin', emptyDir: { sizeLimit: SVC_BIN_SIZE_LIMIT } };
}

/** Whether sandboxd reaches the Pod without an init container. */
const initContainerFree = (settings: OperatorSettings) =>
  settings.sandboxdDelivery === 'imageVolume' || settings.sandboxdDelivery === 'csi';

/** The folder of `sandboxdPath` inside the image, relative (a subPath); `sandboxdPath` must end in `/sandboxd`. */
const imageFolder = (settings: OperatorSettings) => posix.dirname(settings.sandboxdPath).replace(/^\/+/, '');

function sandboxdMount(settings: OperatorSettings): V1VolumeMount {
  if (settings.sandboxdDelivery === 'imageVolume')
    // containerd mounts only a folder of an image (`only directory subpath is supported`).
    return { name: 'svc-bin', mountPath: SandboxPod.binDir, subPath: imageFolder(settings), readOnly: true };
  return { name: 'svc-bin', mountPath: SandboxPod.binDir, readOnly: true };
}

/**
 * The sandbox Pod. An init container copies sandboxd out of the svc image into an
 * emptyDir (or the svc image is an image volume, or the node plugin's CSI volume holds it:
 * `sandboxdVolume`); the main container runs
 * it from there in the template's image, and sandboxd
 * starts the template's command, and every other process, as the template's user. No
 * service-account token, no privilege escalation; sandboxd alone keeps a few capabilities
 * (security.ts); the Pod's processes share one PID namespace so the pause process reaps.
 * Every container has CPU, memory and ephemeral-storage limits and the emptyDir a size
 * limit, so the Pod as a whole is bounded (process counts: the kubelet's podPidsLimit).
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
    sandboxdVolume(settings),
    // sandboxd's alone: root's, 0400, and no fsGroup on the Pod to make it the user's group's.
    { name: 'svc-token', secret: { secretName: sandboxdSecretName(objects), defaultMode: 0o400 } },
    // The user's own credentials, for its processes: root's, so readable by all (the Pod
    // holds no other user than root and the template's).
    ...credentialFiles.map((f, i) => ({
      name: `credential-${i}`,
      secret: { secretName: f.secretName, defaultMode: 0o444 },
    })),
  ];
  const mounts: V1VolumeMount[] = [
    { name: 'workspace', mountPath: '/workspace' },
    sandboxdMount(settings),
    { name: 'svc-token', mountPath: SandboxPod.tokenDir, readOnly: true },
    ...credentialFiles.map((f, i) => ({ name: `credential-${i}`, mountPath: f.mountPath, readOnly: true })),
  ];
  const user = sandboxUser(template);
  const command = [...(template.command ?? []), ...(template.args ?? [])];
  const memory = sandbox.spec.mode === 'agent' ? settings.agentMemorySidecar : undefined;
  const env = environment(sandbox, template, settings);
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
      // No fsGroup: the kubelet would give the token's volume to that group. sandboxd hands
      // the workspace to the template's user itself (and the Pod meets `baseline`, not
      // `restricted`: sandboxd is root, with the few capabilities of security.ts).
      securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
      ...isolation(sandbox, template),
      ...(initContainerFree(settings)
        ? {}
        : {
            initContainers: [
              {
                name: SandboxPod.installContainer,
                image: settings.sandboxdImage,
                command: ['cp', settings.sandboxdPath, `${SandboxPod.binDir}/sandboxd`],
                volumeMounts: [{ name: 'svc-bin', mountPath: SandboxPod.binDir }],
                resources: HELPER_RESOURCES.install,
                securityContext: userSecurity(INSTALL_USER),
              },
            ],
          }),
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
          resources: sandboxResources(template, sandbox.spec),
          volumeMounts: mounts,
          securityContext: sandboxdSecurity(),
        },
        ...(memory ? [memoryContainer(memory, userSecurity(user))] : []),
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
    resources: HELPER_RESOURCES.memory,
    securityContext: hardened,
  };
}
