// The NetworkPolicy the operator writes for a sandbox's egress, read back from the
// apiserver. devnode enforces no NetworkPolicy (DESIGN decision 7): this proves what the
// operator asks the cluster's network plugin for; that a Pod then reaches nothing else is
// for a real node to show.
import { NetworkingV1Api, type V1NetworkPolicy } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { GROUP, VERSION } from '../../core/index.ts';
import { startOperator, type RunningOperator } from '../../operator/index.ts';
import { eventually } from '../../stack/index.ts';
import {
  testOperatorSettings,
  useClusterTemplate,
  useNamespace,
  type TestNamespace,
} from '../support/index.ts';

const ns = useNamespace('net');
/** A second namespace the operator serves: it watches each of its namespaces apart. */
const second = useNamespace('net-b');
const none = useClusterTemplate('net-none', ns, { network: { egress: 'none' } });
const internet = useClusterTemplate('net-internet', ns, { network: { egress: 'internet' } });
/** As the chart passes them: the cluster's DNS Pods, and the Pod and Service ranges left out. */
const dns = { namespace: 'kube-system', podLabels: { 'k8s-app': 'kube-dns' } };
const internetExcept = ['10.0.0.0/8', '169.254.0.0/16', '100.96.0.0/11', '100.128.0.0/16'];
let operator: RunningOperator | undefined;
beforeAll(async () => {
  operator = await startOperator({
    kc: ns.kc,
    logger: pino({ level: 'silent' }),
    namespace: [ns.name, second.name],
    leaseNamespace: ns.name,
    identity: 'net',
    settings: { ...testOperatorSettings, egress: { dns, internetExcept } },
  });
}, 30_000);
afterAll(async () => {
  await operator?.stop();
}, 30_000);

async function createSandbox(where: TestNamespace, name: string, template: string): Promise<void> {
  await where.custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    plural: 'sandboxes',
    namespace: where.name,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'Sandbox',
      metadata: { name },
      spec: { templateRef: { name: template }, stopped: true },
    },
  });
}

async function policyOf(sandbox: string, where = ns): Promise<V1NetworkPolicy> {
  const net = where.kc.makeApiClient(NetworkingV1Api);
  let policy: V1NetworkPolicy | undefined;
  await eventually(
    async () => {
      policy = await net
        .readNamespacedNetworkPolicy({ name: `sandbox-${sandbox}`, namespace: where.name })
        .catch(() => undefined);
      return policy !== undefined;
    },
    { timeoutMs: 30_000, describe: () => `no NetworkPolicy for ${sandbox}` },
  );
  return policy!;
}

const dnsOnly = {
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

test('egress none: the only egress is UDP/TCP 53 to the cluster DNS Pods', async () => {
  await createSandbox(ns, 'quiet', none);
  const policy = await policyOf('quiet');
  expect(policy.spec?.podSelector).toEqual({ matchLabels: { 'svc.io/sandbox': 'quiet' } });
  expect(policy.spec?.policyTypes).toEqual(['Ingress', 'Egress']);
  expect(policy.spec?.egress).toEqual([dnsOnly]);
});

test('egress internet: DNS to the cluster DNS, the rest of IPv4 but the configured ranges', async () => {
  // In the operator's second namespace.
  await createSandbox(second, 'open', internet);
  const policy = await policyOf('open', second);
  expect(policy.spec?.egress).toEqual([
    dnsOnly,
    { to: [{ ipBlock: { cidr: '0.0.0.0/0', except: internetExcept } }] },
  ]);
});
