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
  networkPolicyName,
  previewHost,
  type PortSpec,
  type Sandbox,
  type SandboxTemplateSpec,
} from '../../core/index.ts';
import type { EgressSettings, OperatorSettings } from '../settings.ts';
import { SPEC_HASH, owned } from './meta.ts';

/**
 * Without settings: DNS to kube-dns (the label both kube-dns and CoreDNS deployments keep),
 * and `internet` without the private ranges, where clusters put their Pod and Service ranges,
 * nor link-local (the cloud metadata address) or carrier-grade NAT.
 */
export const DEFAULT_EGRESS: EgressSettings = {
  dns: { namespace: 'kube-system', podLabels: { 'k8s-app': 'kube-dns' } },
  internetExcept: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '100.64.0.0/10'],
};

/**
 * Ingress only from the API (to sandboxd and forwarded ports), the operator (to sandboxd)
 * and the ingress controller (to forwarded ports); egress as the template says, DNS to the
 * cluster's DNS Pods always.
 */
export function networkPolicy(
  sandbox: Sandbox,
  template: SandboxTemplateSpec,
  settings: OperatorSettings,
): V1NetworkPolicy {
  const name = sandbox.metadata.name!;
  const ownNamespace = { matchLabels: { 'kubernetes.io/metadata.name': settings.apiNamespace } };
  const api = { namespaceSelector: ownNamespace, podSelector: { matchLabels: settings.apiPodLabels } };
  const operator = settings.operatorPodLabels
    ? [{ namespaceSelector: ownNamespace, podSelector: { matchLabels: settings.operatorPodLabels } }]
    : [];
  const ports = sandbox.spec.ports ?? [];
  const { dns: dnsPods, internetExcept } = settings.egress ?? DEFAULT_EGRESS;
  // Port 53 to the cluster's DNS Pods only: to any address it would be a way out (a tunnel,
  // or a server of one's own on 53) that `egress: none` promises not to leave.
  const dns: V1NetworkPolicyEgressRule = {
    to: [
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': dnsPods.namespace } },
        podSelector: { matchLabels: dnsPods.podLabels },
      },
    ],
    ports: [
      { protocol: 'UDP', port: 53 },
      { protocol: 'TCP', port: 53 },
    ],
  };
  const egress = template.network?.egress ?? 'internet';
  const gateway = (settings.egress ?? DEFAULT_EGRESS).gateway;
  // allowlist: DNS and the gateway's Pods only, so a connection that skips the proxy (to an
  // address, or a tool that ignores HTTP_PROXY) goes nowhere.
  const viaGateway: V1NetworkPolicyEgressRule[] = gateway
    ? [
        {
          to: [{ namespaceSelector: ownNamespace, podSelector: { matchLabels: gateway.podLabels } }],
          ports: [{ protocol: 'TCP', port: gateway.port }],
        },
      ]
    : [];
  const egressRules: V1NetworkPolicyEgressRule[] =
    egress === 'all'
      ? [{}]
      : egress === 'none'
        ? [dns]
        : egress === 'allowlist'
          ? [dns, ...viaGateway]
          : [dns, { to: [{ ipBlock: { cidr: '0.0.0.0/0', except: internetExcept } }] }];
  const spec: V1NetworkPolicy['spec'] = {
    podSelector: { matchLabels: { [Labels.sandbox]: name } },
    policyTypes: ['Ingress', 'Egress'],
    ingress: [
      { _from: [api, ...operator], ports: [{ protocol: 'TCP', port: SandboxPod.port }] },
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
          host: previewHost(
            { namespace: sandbox.metadata.namespace!, name: sandbox.metadata.name! },
            port.port,
            domain,
          ),
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
