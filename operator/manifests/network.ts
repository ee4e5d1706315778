import { createHash } from 'node:crypto';
import type {
  V1Ingress,
  V1NetworkPolicy,
  V1NetworkPolicyEgressRule,
  V1Service,
} from '@kubernetes/client-node';
import {
  Labels,
  SandboxPod,
  forwardedServiceName,
  previewHost,
  type PortSpec,
  type Sandbox,
  type SandboxTemplateSpec,
} from '../../core/index.ts';
import type { OperatorSettings } from '../settings.ts';
import { SPEC_HASH, owned } from './meta.ts';

/** The sandbox's NetworkPolicy. */
export const networkPolicyName = (sandbox: string) => `sandbox-${sandbox}`;

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
  const metadata = owned(sandbox, networkPolicyName(name));
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
