// The objects a Sandbox owns, as pure functions of the Sandbox, its resolved template and
// the operator's settings. The reconciler creates them and keeps them correct.
import { createHash } from 'node:crypto';
import type {
  V1Container,
  V1EnvVar,
  V1Ingress,
  V1NetworkPolicy,
  V1NetworkPolicyEgressRule,
  V1PersistentVolumeClaim,
  V1Pod,
  V1Secret,
  V1Service,
  V1Volume,
  V1VolumeMount,
} from '@kubernetes/client-node';
import {
  GROUP,
  Labels,
  SandboxPod,
  VERSION,
  forwardedServiceName,
  previewHost,
  sandboxdSecretName,
  workspaceClaimName,
  type PortSpec,
  type Sandbox,
  type SandboxTemplateSpec,
} from '../core/index.ts';
import type { OperatorSettings } from './settings.ts';

const SNAPSHOT_GROUP = 'snapshot.storage.k8s.io';
/** Hash of what the operator wrote into an object's spec, so an unchanged one is not rewritten. */
export const SPEC_HASH = 'svc.io/spec-hash';

/** Metadata every owned object carries: its name, the sandbox label, a controller reference. */
function owned(sandbox: Sandbox, name: string) {
  return {
    name,
    namespace: sandbox.metadata.namespace!,
    labels: { [Labels.sandbox]: sandbox.metadata.name! },
    ownerReferences: [
      {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'Sandbox',
        name: sandbox.metadata.name!,
        uid: sandbox.metadata.uid!,
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  };
}

export function tokenSecret(sandbox: Sandbox, token: string): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: owned(sandbox, sandboxdSecretName(sandbox.metadata.name!)),
    type: 'Opaque',
    stringData: { [SandboxPod.tokenKey]: token },
  };
}

/**
 * The workspace claim. A clone's claim has the snapshot as its dataSource and the source
 * claim's class, so the same driver restores it.
 */
export function workspaceClaim(
  sandbox: Sandbox,
  template: SandboxTemplateSpec,
  clone?: { snapshot: string; storageClassName?: string },
): V1PersistentVolumeClaim {
  const size = sandbox.spec.resources?.storage ?? template.storage?.size ?? '1Gi';
  const storageClassName = clone ? clone.storageClassName : template.storage?.storageClassName;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: owned(sandbox, workspaceClaimName(sandbox.metadata.name!)),
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: String(size) } },
      ...(storageClassName ? { storageClassName } : {}),
      ...(clone
        ? { dataSource: { apiGroup: SNAPSHOT_GROUP, kind: 'VolumeSnapshot', name: clone.snapshot } }
        : {}),
    },
  };
}

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
  const credentialFiles = sandbox.spec.credentials?.files ?? [];
  const volumes: V1Volume[] = [
    { name: 'workspace', persistentVolumeClaim: { claimName: workspaceClaimName(name) } },
    { name: 'svc-bin', emptyDir: {} },
    { name: 'svc-token', secret: { secretName: sandboxdSecretName(name), defaultMode: 0o440 } },
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
      ...owned(sandbox, name),
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

/** Private ranges kept out of `internet` egress: the cluster and its neighbours. */
const PRIVATE = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '100.64.0.0/10'];

/**
 * Ingress only from the API (to sandboxd and forwarded ports) and the ingress controller
 * (to forwarded ports); egress as the template says, DNS always.
 */
export function networkPolicy(
  sandbox: Sandbox,
  template: SandboxTemplateSpec,
  settings: OperatorSettings,
): V1NetworkPolicy {
  const name = sandbox.metadata.name!;
  const api = {
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': settings.apiNamespace } },
    podSelector: { matchLabels: settings.apiPodLabels },
  };
  const ports = sandbox.spec.ports ?? [];
  const dns: V1NetworkPolicyEgressRule = {
    ports: [
      { protocol: 'UDP', port: 53 },
      { protocol: 'TCP', port: 53 },
    ],
  };
  const egress = template.network?.egress ?? 'internet';
  const egressRules: V1NetworkPolicyEgressRule[] =
    egress === 'all'
      ? [{}]
      : egress === 'none'
        ? [dns]
        : [dns, { to: [{ ipBlock: { cidr: '0.0.0.0/0', except: PRIVATE } }] }];
  const spec: V1NetworkPolicy['spec'] = {
    podSelector: { matchLabels: { [Labels.sandbox]: name } },
    policyTypes: ['Ingress', 'Egress'],
    ingress: [
      { _from: [api], ports: [{ protocol: 'TCP', port: SandboxPod.port }] },
      ...(ports.length > 0
        ? [
            {
              _from: [
                api,
                ...(settings.ingressNamespace
                  ? [
                      {
                        namespaceSelector: {
                          matchLabels: { 'kubernetes.io/metadata.name': settings.ingressNamespace },
                        },
                      },
                    ]
                  : []),
              ],
              ports: ports.map((p) => ({ protocol: 'TCP', port: p.port as never })),
            },
          ]
        : []),
    ],
    egress: egressRules,
  };
  const hash = createHash('sha256').update(JSON.stringify(spec)).digest('hex').slice(0, 16);
  const metadata = owned(sandbox, `sandbox-${name}`);
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { ...metadata, annotations: { [SPEC_HASH]: hash } },
    spec,
  };
}

export function portService(sandbox: Sandbox, port: PortSpec): V1Service {
  const name = sandbox.metadata.name!;
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: owned(sandbox, forwardedServiceName(name, port.port)),
    spec: {
      type: 'ClusterIP',
      selector: { [Labels.sandbox]: name },
      ports: [{ name: port.protocol, port: port.port, targetPort: port.port, protocol: 'TCP' }],
    },
  };
}

export function portIngress(
  sandbox: Sandbox,
  port: PortSpec,
  settings: OperatorSettings,
  domain: string,
): V1Ingress {
  const service = forwardedServiceName(sandbox.metadata.name!, port.port);
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: owned(sandbox, service),
    spec: {
      ingressClassName: settings.ingressClass,
      rules: [
        {
          host: previewHost(sandbox.metadata.name!, port.port, domain),
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: { service: { name: service, port: { number: port.port } } },
              },
            ],
          },
        },
      ],
    },
  };
}
