import { describe, expect, test } from 'vitest';
import type { Sandbox, SandboxTemplateSpec } from '../../core/index.ts';
import type { OperatorSettings } from '../settings.ts';
import { DEFAULT_EGRESS, networkPolicy } from './network.ts';
import { sandboxPod } from './pod.ts';

// Issue 35: an allowlist sandbox's only ways out are the cluster DNS and the egress gateway,
// and it is told the gateway is its proxy.
const gateway = {
  proxyUrl: 'http://svc-egress.svc-system.svc:3128',
  port: 3128,
  podLabels: { 'app.kubernetes.io/component': 'egress' },
};
const settings: OperatorSettings = {
  sandboxdImage: 'svc:test',
  sandboxdPath: '/usr/local/bin/sandboxd',
  ingressClass: 'nginx',
  apiNamespace: 'svc-system',
  apiPodLabels: { app: 'api' },
  snapshotWaitSeconds: 60,
  maxRestarts: 5,
  egress: { ...DEFAULT_EGRESS, gateway },
};
const sandbox: Sandbox = {
  apiVersion: 'svc.io/v1alpha1',
  kind: 'Sandbox',
  metadata: { name: 's', namespace: 'n', uid: 'u' },
  spec: { mode: 'code', templateRef: { name: 't', kind: 'ClusterSandboxTemplate' }, stopped: false },
};
const allowlist: SandboxTemplateSpec = {
  image: 'debian:bookworm',
  env: [{ name: 'HTTPS_PROXY', value: 'http://elsewhere:8080' }],
  network: { egress: 'allowlist', allowedHosts: ['pypi.org'] },
};
const dns = {
  to: [
    {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
      podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
    },
  ],
  ports: [
    { protocol: 'UDP', port: 53 },
    { protocol: 'TCP', port: 53 },
  ],
};

describe('allowlist sandboxes', () => {
  test('egress only to the cluster DNS and the gateway Pods, on the gateway port', () => {
    expect(networkPolicy(sandbox, allowlist, settings).spec?.egress).toEqual([
      dns,
      {
        to: [
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'svc-system' } },
            podSelector: { matchLabels: { 'app.kubernetes.io/component': 'egress' } },
          },
        ],
        ports: [{ protocol: 'TCP', port: 3128 }],
      },
    ]);
  });

  test('without a gateway configured: DNS only (closed, never open)', () => {
    const none = { ...settings, egress: DEFAULT_EGRESS };
    expect(networkPolicy(sandbox, allowlist, none).spec?.egress).toEqual([dns]);
  });

  test('the proxy variables, both spellings, winning over the template', () => {
    const env = sandboxPod(sandbox, allowlist, settings).spec!.containers[0]!.env!;
    const proxy = env.filter((e) => /_proxy$/i.test(e.name)).map((e) => [e.name, e.value]);
    expect(proxy).toEqual([
      ['HTTP_PROXY', gateway.proxyUrl],
      ['http_proxy', gateway.proxyUrl],
      ['HTTPS_PROXY', gateway.proxyUrl],
      ['https_proxy', gateway.proxyUrl],
      ['NO_PROXY', 'localhost,127.0.0.1,::1'],
      ['no_proxy', 'localhost,127.0.0.1,::1'],
    ]);
  });

  test('no proxy variables for other templates', () => {
    const internet = { image: 'debian:bookworm', network: { egress: 'internet' as const } };
    const env = sandboxPod(sandbox, internet, settings).spec!.containers[0]!.env!;
    expect(env.filter((e) => /_proxy$/i.test(e.name))).toEqual([]);
  });
});
