import { CoreV1Api, type KubeConfig, type V1Secret } from '@kubernetes/client-node';
import { CredentialMarks, Labels, type SecretSummary } from '../../core/index.ts';
import { fromKube } from '../cluster/index.ts';

/** The form that keeps a Secret's values out of everything the API answers. */
function summary(secret: V1Secret): SecretSummary {
  const m = secret.metadata ?? {};
  return {
    name: m.name ?? '',
    namespace: m.namespace ?? '',
    owner: m.labels?.[CredentialMarks.owner] ?? '',
    keys: Object.keys(secret.data ?? {}).sort(),
    ...(m.creationTimestamp ? { creationTimestamp: new Date(m.creationTimestamp).toISOString() } : {}),
  };
}

/**
 * Users' own Secrets in sandbox namespaces, labelled `svc.io/owner=<user>`. Only Secrets
 * with that label are listed or deleted here; sandboxes' token Secrets never carry it.
 */
export class UserSecrets {
  readonly #core: CoreV1Api;

  constructor(kc: KubeConfig) {
    this.#core = kc.makeApiClient(CoreV1Api);
  }

  async create(o: {
    namespace: string;
    name: string;
    owner: string;
    data: Record<string, string>;
  }): Promise<SecretSummary> {
    const body: V1Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: o.name, namespace: o.namespace, labels: { [CredentialMarks.owner]: o.owner } },
      type: 'Opaque',
      stringData: o.data,
    };
    try {
      return summary(await this.#core.createNamespacedSecret({ namespace: o.namespace, body }));
    } catch (err) {
      // The apiserver's message never echoes the data; name the Secret, not the body.
      throw fromKube(err, `Secret ${o.name} in namespace ${o.namespace}`);
    }
  }

  /** Users' Secrets in the namespace; `owner` narrows to one user's. */
  async list(namespace: string, owner?: string): Promise<SecretSummary[]> {
    const selector = owner === undefined ? CredentialMarks.owner : `${CredentialMarks.owner}=${owner}`;
    const list = await this.#core
      .listNamespacedSecret({ namespace, labelSelector: `${selector},!${Labels.sandbox}` })
      .catch((err: unknown) => {
        throw fromKube(err, `Secrets in namespace ${namespace}`);
      });
    return list.items.map(summary).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The user Secret's summary, or undefined when there is none by that name. */
  async read(namespace: string, name: string): Promise<SecretSummary | undefined> {
    try {
      const secret = await this.#core.readNamespacedSecret({ namespace, name });
      if (secret.metadata?.labels?.[CredentialMarks.owner] === undefined) return undefined;
      return summary(secret);
    } catch (err) {
      if ((err as { code?: number }).code === 404) return undefined;
      throw fromKube(err, `Secret ${name} in namespace ${namespace}`);
    }
  }

  async delete(namespace: string, name: string): Promise<void> {
    await this.#core.deleteNamespacedSecret({ namespace, name }).catch((err: unknown) => {
      throw fromKube(err, `Secret ${name} in namespace ${namespace}`);
    });
  }
}
