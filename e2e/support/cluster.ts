import { randomBytes } from 'node:crypto';
import { CoreV1Api, KubeConfig, NetworkingV1Api } from '@kubernetes/client-node';
import { inject } from 'vitest';
import { SvcClient } from '../../clients/typescript/index.ts';
import { Labels } from '../../core/index.ts';
import type { E2eEnv } from './env.ts';

/** The installed svc the global setup provides. */
export function e2eEnv(): E2eEnv {
  return inject('e2e');
}

/** A name of the test's own: tests share the namespace, never a sandbox. */
export function sandboxName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

/** The public API as `user` (its key from install.sh), in the sandboxes' namespace. */
export function svcClient(user: 'alice' | 'bob' | 'admin'): SvcClient {
  const env = e2eEnv();
  return new SvcClient({ baseUrl: env.baseUrl, apiKey: env.keys[user], namespace: env.namespace });
}

/**
 * The Kubernetes objects svc made for a sandbox (label svc.io/sandbox), as `Kind/name`,
 * sorted: what a delete must leave none of. Read with the cluster's admin kubeconfig, as a
 * check only; the tests act through the public API.
 */
export async function sandboxObjects(name: string): Promise<string[]> {
  const env = e2eEnv();
  const kc = new KubeConfig();
  kc.loadFromFile(env.kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const net = kc.makeApiClient(NetworkingV1Api);
  const q = { namespace: env.namespace, labelSelector: `${Labels.sandbox}=${name}` };
  const lists = await Promise.all([
    core.listNamespacedPod(q).then((l) => l.items.map((o) => `Pod/${o.metadata!.name!}`)),
    core
      .listNamespacedPersistentVolumeClaim(q)
      .then((l) => l.items.map((o) => `PersistentVolumeClaim/${o.metadata!.name!}`)),
    core.listNamespacedService(q).then((l) => l.items.map((o) => `Service/${o.metadata!.name!}`)),
    core.listNamespacedSecret(q).then((l) => l.items.map((o) => `Secret/${o.metadata!.name!}`)),
    net.listNamespacedNetworkPolicy(q).then((l) => l.items.map((o) => `NetworkPolicy/${o.metadata!.name!}`)),
  ]);
  return lists.flat().sort();
}
