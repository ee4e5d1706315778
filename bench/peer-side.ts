// The peer's side of make bench-peer (bench/peer.ts on devnode, bench/peer-real.ts on the real
// cluster): kubernetes-sigs/agent-sandbox (hack/peer) — its CRDs as its module ships them, its
// controller's command line, and its objects (SandboxTemplate, SandboxWarmPool, Sandbox,
// SandboxClaim with `warmPoolRef`) with the first Ready each shows.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type V1CustomResourceDefinition,
  type V1PodSpec,
} from '@kubernetes/client-node';
import { parse } from 'yaml';
import { eventually } from '../stack/index.ts';
import { Sight } from './sight.ts';

export const PEER = { core: 'agents.x-k8s.io', ext: 'extensions.agents.x-k8s.io', version: 'v1beta1' };

export type Conditioned = {
  metadata?: {
    name?: string;
    deletionTimestamp?: unknown;
    ownerReferences?: { kind: string; name: string }[];
  };
  status?: { conditions?: { type: string; status: string }[]; readyReplicas?: number };
};
export const ready = (o: Conditioned): boolean =>
  o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** What a Sandbox or SandboxTemplate of the peer holds: a Pod spec and the workspace's claim. */
export interface Blueprint {
  podTemplate: { spec: V1PodSpec };
  volumeClaimTemplates: object[];
}

/** The peer's Pod spec and a `workspace` claim of `size` (the peer mounts it by that name). */
export function blueprint(spec: V1PodSpec, size: string, storageClassName?: string): Blueprint {
  return {
    podTemplate: { spec },
    volumeClaimTemplates: [
      {
        metadata: { name: 'workspace' },
        spec: {
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: size } },
          ...(storageClassName ? { storageClassName } : {}),
        },
      },
    ],
  };
}

/**
 * The peer's CRDs from its module's k8s/crds, created (or replaced, on a cluster an earlier
 * run left them on) and Established. Without a conversion webhook: v1.0.3 serves one version.
 */
export async function installPeerCrds(kc: KubeConfig, peerDir: string): Promise<string[]> {
  const ext = kc.makeApiClient(ApiextensionsV1Api);
  const names: string[] = [];
  for (const file of (await readdir(join(peerDir, 'crds'))).filter((f) => f.endsWith('.yaml'))) {
    const crd = parse(await readFile(join(peerDir, 'crds', file), 'utf8')) as V1CustomResourceDefinition;
    crd.spec.conversion = { strategy: 'None' };
    const name = crd.metadata!.name!;
    names.push(name);
    await ext.createCustomResourceDefinition({ body: crd }).catch(async (err: { code?: number }) => {
      if (err.code !== 409) throw err;
      const old = await ext.readCustomResourceDefinition({ name });
      crd.metadata!.resourceVersion = old.metadata!.resourceVersion;
      await ext.replaceCustomResourceDefinition({ name, body: crd });
    });
    await eventually(
      async () =>
        (await ext.readCustomResourceDefinition({ name })).status?.conditions?.some(
          (c) => c.type === 'Established' && c.status === 'True',
        ) ?? false,
      { timeoutMs: 30_000, describe: () => `${name} established` },
    );
  }
  return names;
}

/** The controller's flags: its extensions on, no leader election, its servers on 127.0.0.1. */
export function peerControllerArgs(metricsPort: number, probePort: number): string[] {
  return [
    '--leader-elect=false',
    '--extensions=true',
    `--metrics-bind-address=127.0.0.1:${metricsPort}`,
    `--health-probe-bind-address=127.0.0.1:${probePort}`,
  ];
}

/** The peer's objects in one namespace, and when each first showed Ready. */
export class PeerSide {
  readonly #custom: CustomObjectsApi;
  readonly #namespace: string;
  readonly #seen = new Map<string, number>();
  #watches: Sight[] = [];

  private constructor(kc: KubeConfig, namespace: string) {
    this.#custom = kc.makeApiClient(CustomObjectsApi);
    this.#namespace = namespace;
  }

  /** Watches the namespace's Sandboxes and SandboxClaims (one watch per kind). */
  static async open(kc: KubeConfig, namespace: string): Promise<PeerSide> {
    const side = new PeerSide(kc, namespace);
    side.#watches = await Promise.all(
      [
        ['sandboxes', `/apis/${PEER.core}/${PEER.version}/namespaces/${namespace}/sandboxes`],
        ['sandboxclaims', `/apis/${PEER.ext}/${PEER.version}/namespaces/${namespace}/sandboxclaims`],
      ].map(([kind, path]) =>
        Sight.open(kc, path!, (_t, o: Conditioned) => {
          const key = `${kind}/${o.metadata?.name}`;
          if (ready(o) && !side.#seen.has(key)) side.#seen.set(key, performance.now());
        }),
      ),
    );
    return side;
  }

  ref(group: string, plural: string) {
    return { group, version: PEER.version, namespace: this.#namespace, plural };
  }

  /**
   * Creates the object; a connection that never reached the apiserver (50 at once through the
   * bench's forwarder can time out connecting) is tried again, up to 5 times, and a 409 on a
   * retry means an earlier try did land.
   */
  async create(group: string, plural: string, kind: string, name: string, spec: object): Promise<void> {
    for (let retry = 0; ; retry++) {
      try {
        await this.#custom.createNamespacedCustomObject({
          ...this.ref(group, plural),
          body: { apiVersion: `${group}/${PEER.version}`, kind, metadata: { name }, spec },
        });
        return;
      } catch (err) {
        if (retry > 0 && (err as { code?: number }).code === 409) return;
        const cause = (err as { cause?: { code?: string } }).cause?.code ?? '';
        if (!/^(UND_ERR_CONNECT_TIMEOUT|ECONNRESET|ECONNREFUSED)$/.test(cause) || retry >= 4) throw err;
        console.error(`${kind} ${name}: ${cause}; again`);
      }
    }
  }

  template = (name: string, b: Blueprint) =>
    this.create(PEER.ext, 'sandboxtemplates', 'SandboxTemplate', name, b);
  pool = (name: string, template: string, replicas: number) =>
    this.create(PEER.ext, 'sandboxwarmpools', 'SandboxWarmPool', name, {
      replicas,
      sandboxTemplateRef: { name: template },
    });
  sandbox = (name: string, b: Blueprint) => this.create(PEER.core, 'sandboxes', 'Sandbox', name, b);
  claim = (name: string, pool: string) =>
    this.create(PEER.ext, 'sandboxclaims', 'SandboxClaim', name, { warmPoolRef: { name: pool } });

  /** When `key` (`sandboxes/NAME` or `sandboxclaims/NAME`) first showed Ready. */
  readyAt(key: string, timeoutMs = 120_000): Promise<number> {
    return eventually(
      () => {
        for (const w of this.#watches) w.check();
        return Promise.resolve(this.#seen.has(key));
      },
      { timeoutMs, intervalMs: 2, describe: () => `${key} Ready` },
    ).then(() => this.#seen.get(key)!);
  }

  /** How many of `keys` have shown Ready (throws once a watch is lost). */
  readyCount(keys: string[]): number {
    for (const w of this.#watches) w.check();
    return keys.filter((k) => this.#seen.has(k)).length;
  }

  /**
   * Full and still: the members themselves counted (a pool's status may still show one a
   * claim just took), every one Ready, none going.
   */
  async poolFull(name: string, size: number): Promise<boolean> {
    const [pool, list] = await Promise.all([
      this.#custom.getNamespacedCustomObject({
        ...this.ref(PEER.ext, 'sandboxwarmpools'),
        name,
      }) as Promise<Conditioned>,
      this.#custom.listNamespacedCustomObject(this.ref(PEER.core, 'sandboxes')) as Promise<{
        items: Conditioned[];
      }>,
    ]);
    const members = list.items.filter((s) =>
      s.metadata?.ownerReferences?.some((o) => o.kind === 'SandboxWarmPool' && o.name === name),
    );
    return (
      pool.status?.readyReplicas === size &&
      members.length === size &&
      members.every((s) => !s.metadata?.deletionTimestamp && ready(s))
    );
  }

  /** Deletes every object of `plural` (the peer's Sandboxes or SandboxClaims) in the namespace. */
  async deleteAll(group: string, plural: string): Promise<void> {
    const list = (await this.#custom.listNamespacedCustomObject(this.ref(group, plural))) as {
      items: Conditioned[];
    };
    await Promise.all(
      list.items.map((o) =>
        this.#custom
          .deleteNamespacedCustomObject({ ...this.ref(group, plural), name: o.metadata!.name! })
          .catch(() => undefined),
      ),
    );
  }

  async delete(group: string, plural: string, name: string): Promise<void> {
    await this.#custom
      .deleteNamespacedCustomObject({ ...this.ref(group, plural), name })
      .catch(() => undefined);
  }

  stop(): void {
    for (const w of this.#watches) w.stop();
  }
}

/**
 * The peer's objects in `namespace` removed in order, while its controller still runs (it
 * removes its own finalizers): claims and pools first (a pool would make new Sandboxes for
 * those deleted), then every Sandbox until none is left and no Pod either, then templates.
 * Each pass deletes what it finds, so a create in flight when the bench stopped goes too.
 */
export async function removePeerObjects(
  kc: KubeConfig,
  namespace: string,
  timeoutMs = 300_000,
): Promise<void> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const core = kc.makeApiClient(CoreV1Api);
  const ref = (group: string, plural: string) => ({ group, version: PEER.version, namespace, plural });
  const deleteAll = async (group: string, plural: string) => {
    const list = (await custom
      .listNamespacedCustomObject(ref(group, plural))
      .catch(() => ({ items: [] }))) as {
      items: Conditioned[];
    };
    await Promise.all(
      list.items
        .filter((o) => !o.metadata?.deletionTimestamp)
        .map((o) =>
          custom
            .deleteNamespacedCustomObject({ ...ref(group, plural), name: o.metadata!.name! })
            .catch(() => undefined),
        ),
    );
    return list.items.length;
  };
  let left = '';
  await eventually(
    async () => {
      const counts = [
        await deleteAll(PEER.ext, 'sandboxclaims'),
        await deleteAll(PEER.ext, 'sandboxwarmpools'),
        await deleteAll(PEER.core, 'sandboxes'),
        (await core.listNamespacedPod({ namespace })).items.length,
      ];
      left = `claims ${counts[0]}, pools ${counts[1]}, sandboxes ${counts[2]}, pods ${counts[3]}`;
      return counts.every((n) => n === 0);
    },
    { timeoutMs, intervalMs: 500, describe: () => `the peer's objects in ${namespace} never went: ${left}` },
  );
  await deleteAll(PEER.ext, 'sandboxtemplates');
}
