import { CoreV1Api, NetworkingV1Api, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import {
  forwardedServiceName,
  networkPolicyName,
  sandboxdSecretName,
  workspaceClaimName,
  type SandboxSpec,
} from '../../core/index.ts';
import { HttpError } from '../errors/index.ts';

/**
 * The names a sandbox needs, checked before anything is written. Reads are metadata only
 * (`PartialObjectMetadata`): whether a name is taken, and by whom, is all it asks, so a
 * Secret's data never travels to the API for it. Clients are made once, in `cmd/`.
 */
export class NameGate {
  readonly #core: CoreV1Api;
  readonly #net: NetworkingV1Api;

  constructor(kc: KubeConfig) {
    const metadata = metadataOnly(kc);
    this.#core = metadata.makeApiClient(CoreV1Api);
    this.#net = metadata.makeApiClient(NetworkingV1Api);
  }

  /**
   * 409 `name_conflict` for a create whose sandbox would need a name that is taken: its Pod
   * (`<name>`), workspace claim (`<name>-workspace`), token Secret (`<name>-sandboxd`),
   * NetworkPolicy (`sandbox-<name>`) or a port's Service (`pf-<name>-<port>`) exists and is
   * not a Sandbox's of this name. The operator would never adopt it (the Sandbox would stay in
   * Error, reason NameConflict), so the caller is told before anything is written. An object
   * whose controller is a Sandbox of the same name is no conflict: it is that sandbox's (the
   * create then answers `conflict`) or one being deleted with its predecessor. Kinds the API
   * may not read in a namespace (RBAC) are left to the operator's check.
   */
  async requireFree(input: { namespace: string; name: string; spec: SandboxSpec }): Promise<void> {
    const { namespace, name, spec } = input;
    const core = this.#core;
    const net = this.#net;
    const wanted: Wanted[] = [
      ['Pod', name, (n) => core.readNamespacedPod({ name: n, namespace })],
      [
        'PersistentVolumeClaim',
        workspaceClaimName(name),
        (n) => core.readNamespacedPersistentVolumeClaim({ name: n, namespace }),
      ],
      ['Secret', sandboxdSecretName(name), (n) => core.readNamespacedSecret({ name: n, namespace })],
      [
        'NetworkPolicy',
        networkPolicyName(name),
        (n) => net.readNamespacedNetworkPolicy({ name: n, namespace }),
      ],
      ...(spec.ports ?? []).map((p): Wanted => [
        'Service',
        forwardedServiceName(name, p.port),
        (n) => core.readNamespacedService({ name: n, namespace }),
      ]),
    ];
    await refuseTaken(namespace, name, wanted, `sandbox name "${name}" is taken`);
  }

  /**
   * 409 `name_conflict` for a port being added to a sandbox whose Service `pf-<name>-<port>`
   * would take a name someone else's object has (the operator would stop at a NameConflict).
   */
  async requireFreePort(input: { namespace: string; name: string; port: number }): Promise<void> {
    const { namespace, name, port } = input;
    const lead = `port ${port} of sandbox ${name} cannot be forwarded`;
    await refuseTaken(
      namespace,
      name,
      [
        [
          'Service',
          forwardedServiceName(name, port),
          (n) => this.#core.readNamespacedService({ name: n, namespace }),
        ],
      ],
      lead,
    );
  }
}

/**
 * A KubeConfig whose every request asks for the object's metadata alone
 * (`PartialObjectMetadata`). client-node authenticates each request through its KubeConfig
 * after setting its headers, which makes that the one place to ask for another
 * representation; the answer still parses as the kind's type, its other fields absent.
 */
function metadataOnly(kc: KubeConfig): KubeConfig {
  const asked = Object.create(kc) as KubeConfig;
  asked.applySecurityAuthentication = async (context) => {
    context.setHeaderParam('Accept', 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1');
    await kc.applySecurityAuthentication(context);
  };
  return asked;
}

type Wanted = [kind: string, object: string, read: (n: string) => Promise<KubernetesObject>];

/** Reads every wanted name at once; 409 naming each that exists and is not a Sandbox's of `name`. */
async function refuseTaken(namespace: string, name: string, wanted: Wanted[], lead: string): Promise<void> {
  const found = await Promise.all(
    wanted.map(async ([kind, object, read]) => {
      const existing = await read(object).catch((err: unknown) => {
        const code = (err as { code?: number }).code;
        if (code === 404 || code === 403) return undefined;
        throw err;
      });
      return existing && !sandboxNamed(existing, name) ? [{ kind, name: object }] : [];
    }),
  );
  const conflicts = found.flat();
  if (conflicts.length === 0) return;
  const what = conflicts.map((c) => `${c.kind} ${c.name}`).join(', ');
  throw new HttpError(
    409,
    'name_conflict',
    `${lead}: ${what} exist${conflicts.length === 1 ? 's' : ''} in namespace ${namespace} and ${conflicts.length === 1 ? 'is' : 'are'} not a sandbox's of that name`,
    { extra: { conflicts } },
  );
}

/** Whether `obj`'s controller is a Sandbox named `name`. */
function sandboxNamed(obj: KubernetesObject, name: string): boolean {
  return !!obj.metadata?.ownerReferences?.some(
    (r) => r.controller && r.kind === 'Sandbox' && r.name === name,
  );
}
