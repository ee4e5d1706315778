import { describe, expect, test } from 'vitest';
import type { Sandbox, SandboxTemplateSpec } from '../../core/index.ts';
import type { OperatorSettings } from '../settings.ts';
import { DEFAULT_EGRESS, networkPolicy } from './network.ts';

const settings: OperatorSettings = {
  sandboxdImage: 'svc:test',
  sandboxdPath: '/usr/local/bin/sandboxd',
  ingressClass: 'nginx',
  apiNamespace: 'svc-system',
  apiPodLabels: { app: 'api' },
  snapshotWaitSeconds: 60,
  maxRestarts: 5,
};
const sandbox: Sandbox = {
  apiVersion: 'svc.io/v1alpha1',
  kind: 'Sandbox',
  metadata: { name: 's', namespace: 'n', uid: 'u' },
  spec: { mode: 'code', templateRef: { name: 't', kind: 'ClusterSandboxTemplate' }, stopped: false },
};
const withEgress = (egress: 'none' | 'internet' | 'all'): SandboxTemplateSpec => ({
  image: 'debian:bookworm',
  network: { egress },
});
const kubeDns = {
  namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
  podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
};
const dnsPorts = [
  { protocol: 'UDP', port: 53 },
  { protocol: 'TCP', port: 53 },
];

describe('egress', () => {
  test('none: DNS only, and only to the cluster DNS Pods (kube-system, k8s-app=kube-dns)', () => {
    const policy = networkPolicy(sandbox, withEgress('none'), settings);
    expect(policy.spec?.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(policy.spec?.egress).toEqual([{ to: [kubeDns], ports: dnsPorts }]);
  });

  test('the DNS Pods are the configured ones', () => {
    const policy = networkPolicy(sandbox, withEgress('none'), {
      ...settings,
      egress: {
        ...DEFAULT_EGRESS,
        dns: { namespace: 'dns-system', podLabels: { app: 'coredns', tier: 'dns' } },
      },
    });
    expect(policy.spec?.egress).toEqual([
      {
        to: [
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'dns-system' } },
            podSelector: { matchLabels: { app: 'coredns', tier: 'dns' } },
          },
        ],
        ports: dnsPorts,
      },
    ]);
  });

  test('internet: DNS to the cluster DNS, everything else but private, link-local and metadata ranges', () => {
    const policy = networkPolicy(sandbox, withEgress('internet'), settings);
    expect(policy.spec?.egress).toEqual([
      { to: [kubeDns], ports: dnsPorts },
      {
        to: [
          {
            ipBlock: {
              cidr: '0.0.0.0/0',
              except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '100.64.0.0/10'],
            },
          },
        ],
      },
    ]);
    // The cloud metadata address is in 169.254.0.0/16.
    expect(DEFAULT_EGRESS.internetExcept).toContain('169.254.0.0/16');
  });

  test('internet: the configured exclusions (the cluster’s Pod and Service ranges)', () => {
    const except = ['10.0.0.0/8', '169.254.0.0/16', '34.118.224.0/20', '240.0.0.0/4'];
    const policy = networkPolicy(sandbox, withEgress('internet'), {
      ...settings,
      egress: { ...DEFAULT_EGRESS, internetExcept: except },
    });
    expect(policy.spec?.egress?.[1]).toEqual({ to: [{ ipBlock: { cidr: '0.0.0.0/0', except } }] });
  });

  test('all: everything, DNS included', () => {
    expect(networkPolicy(sandbox, withEgress('all'), settings).spec?.egress).toEqual([{}]);
  });

  test('another DNS selector changes the spec hash, so the policy is rewritten', () => {
    const a = networkPolicy(sandbox, withEgress('none'), settings);
    const b = networkPolicy(sandbox, withEgress('none'), {
      ...settings,
      egress: { ...DEFAULT_EGRESS, dns: { namespace: 'kube-system', podLabels: { 'k8s-app': 'coredns' } } },
    });
    expect(a.metadata?.annotations).not.toEqual(b.metadata?.annotations);
  });
});

describe('ingress', () => {
  const peer = (labels: Record<string, string>) => ({
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'svc-system' } },
    podSelector: { matchLabels: labels },
  });

  test("sandboxd's port: the API's Pods and the operator's (installs, readiness, warm-pool handover)", () => {
    const policy = networkPolicy(sandbox, withEgress('none'), {
      ...settings,
      operatorPodLabels: { app: 'operator' },
    });
    expect(policy.spec?.ingress).toEqual([
      { _from: [peer({ app: 'api' }), peer({ app: 'operator' })], ports: [{ protocol: 'TCP', port: 9000 }] },
    ]);
  });

  test('forwarded ports: the API only (the operator never calls them)', () => {
    const policy = networkPolicy(
      { ...sandbox, spec: { ...sandbox.spec, ports: [{ port: 8080, protocol: 'http' }] } },
      withEgress('none'),
      { ...settings, operatorPodLabels: { app: 'operator' } },
    );
    expect(policy.spec?.ingress?.[1]).toEqual({
      _from: [peer({ app: 'api' })],
      ports: [{ protocol: 'TCP', port: 8080 }],
    });
  });
});
