// NetworkPolicies on a real cluster, proven by packets: each probe is a TCP connect from inside
// a sandbox (an exec through the public API), never a reading of the policy objects. The
// cluster's enforcer (kube-router's firewall) is what makes these pass: with it stopped and its
// rules gone, the probes that must fail connect (docs/testing.md records that run).
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../clients/typescript/index.ts';
import { e2eEnv, sandboxName, svcClient, tcpProbe } from './support/index.ts';

const alice = svcClient('alice');
const a = sandboxName('e2e-net-a');
const b = sandboxName('e2e-net-b');
const quiet = sandboxName('e2e-net-none');
/** sandboxd's port in every sandbox Pod (SandboxPod.port). */
const SANDBOXD = 9000;

function core(): CoreV1Api {
  const kc = new KubeConfig();
  kc.loadFromFile(e2eEnv().kubeconfig);
  return kc.makeApiClient(CoreV1Api);
}

/** A sandbox Pod's address (read as a check; the sandbox's Pod is named after it). */
async function podIP(name: string): Promise<string> {
  const pod = await core().readNamespacedPod({ name, namespace: e2eEnv().namespace });
  return pod.status!.podIP!;
}

async function serviceIP(namespace: string, name: string): Promise<string> {
  return (await core().readNamespacedService({ name, namespace })).spec!.clusterIP!;
}

const probe = (from: string, host: string, port: number) => tcpProbe(alice, from, host, port);

beforeAll(async () => {
  await Promise.all([
    alice.createSandbox({ name: a, mode: 'code', templateRef: { name: 'default' } }),
    alice.createSandbox({ name: b, mode: 'code', templateRef: { name: 'default' } }),
    // `minimal` is egress: none.
    alice.createSandbox({ name: quiet, mode: 'code', templateRef: { name: 'minimal' } }),
  ]);
  await Promise.all([a, b, quiet].map((n) => alice.waitForPhase(n, 'Running', { timeoutMs: 240_000 })));
}, 300_000);

afterAll(async () => {
  await Promise.all(
    [a, b, quiet].map((n) =>
      alice.deleteSandbox(n).catch((err: unknown) => {
        if (!(err instanceof NotFoundError)) throw err;
      }),
    ),
  );
});

describe('NetworkPolicies enforced on a real cluster, by packets', () => {
  it('a sandbox reaches the cluster DNS but not another sandbox’s sandboxd, either way', async () => {
    const dns = await serviceIP('kube-system', 'kube-dns');
    const [ipA, ipB] = await Promise.all([podIP(a), podIP(b)]);
    // The control: the sandbox has a network, and the policy lets DNS through.
    expect(await probe(a, dns, 53)).toBe('open');
    // The API does reach b's sandboxd (this exec goes through it)…
    expect((await alice.execSandbox(b, { command: ['true'] })).exitCode).toBe(0);
    // …another sandbox does not.
    expect(await probe(a, ipB, SANDBOXD)).toBe('closed');
    expect(await probe(b, ipA, SANDBOXD)).toBe('closed');
  });

  it('egress `internet` reaches neither the Pod range nor the Service range (the apiserver, svc’s API)', async () => {
    const kubernetes = await serviceIP('default', 'kubernetes');
    const api = await core().listServiceForAllNamespaces({
      labelSelector: 'app.kubernetes.io/component=api',
    });
    const apiService = api.items[0]!;
    const apiPort = apiService.spec!.ports![0]!.port;
    expect(await probe(a, kubernetes, 443)).toBe('closed');
    expect(await probe(a, apiService.spec!.clusterIP!, apiPort)).toBe('closed');
  });

  it('egress `none` reaches the cluster DNS and nothing else', async () => {
    const dns = await serviceIP('kube-system', 'kube-dns');
    const kubernetes = await serviceIP('default', 'kubernetes');
    expect(await probe(quiet, dns, 53)).toBe('open');
    expect(await probe(quiet, await podIP(b), SANDBOXD)).toBe('closed');
    expect(await probe(quiet, kubernetes, 443)).toBe('closed');
  });
});
