import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { GROUP, VERSION, type Counts, type Sandbox } from '../../core/index.ts';

/**
 * How long a reservation counts while its Sandbox has not appeared (a create that failed
 * or whose creator died). A Sandbox that appeared releases its reservation (`release`), so
 * this bounds only a reservation nobody settled.
 */
const RESERVATION_TTL_MS = 60_000;
const LEDGER = 'svc-quota-ledger';

interface Reservation {
  user: string;
  mode: 'code' | 'agent';
  at: number;
}

/** The state one reservation attempt decides on (see `QuotaLedger.snapshot`). */
export interface LedgerSnapshot {
  namespace: string;
  ledger: V1ConfigMap | undefined;
  listed: Sandbox[];
}

export interface ReserveRequest {
  namespace: string;
  name: string;
  user: string;
  mode: 'code' | 'agent';
  /** Decides with the counts of everything else in the namespace; a thrown error refuses. */
  decide: (counts: Counts) => void;
  /** A dry run (`kubectl --dry-run=server`): decide with the same counts, reserve nothing. */
  dryRun?: boolean;
}

/**
 * Race-free quotas across any number of API and webhook replicas. Each create first
 * reserves its name in a per-namespace ConfigMap, written with the resourceVersion as a
 * compare-and-swap: two creators that both read the same ledger cannot both write it, so
 * the loser re-reads, sees the winner's reservation and counts it. Counts come from a fresh
 * LIST of Sandboxes (never a cache) plus reservations whose Sandbox does not exist yet.
 * A reservation ends when its Sandbox is seen (a terminating one included: it no longer
 * counts, and neither does its reservation) and is removed by `release` once the Sandbox
 * exists or is deleted, so a deleted Sandbox frees its slot at once.
 *
 * Given `home` (the service's namespace, as the API and webhook run), every ledger lives
 * there as `svc-quota-ledger-<namespace>`: they may write ConfigMaps in their own namespace
 * only, and no user of a sandbox namespace can edit its ledger. Without it (in-process
 * tests), a namespace's ledger is `svc-quota-ledger` in that namespace.
 */
export class QuotaLedger {
  readonly #core: CoreV1Api;
  readonly #custom: CustomObjectsApi;
  readonly #now: () => number;
  readonly #home: string | undefined;

  constructor(kc: KubeConfig, o: { home?: string; now?: () => number } = {}) {
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#custom = kc.makeApiClient(CustomObjectsApi);
    this.#now = o.now ?? Date.now;
    this.#home = o.home;
  }

  /** Where the ledger of `namespace` is kept. */
  #where(namespace: string): { name: string; namespace: string } {
    return this.#home
      ? { name: `${LEDGER}-${namespace}`, namespace: this.#home }
      : { name: LEDGER, namespace };
  }

  /**
   * What a reservation decides on: the ledger and a fresh LIST of the namespace's Sandboxes.
   * They are read together, and the LIST counts only when it is at least as recent as the
   * ledger's last write (etcd revisions): a Sandbox whose reservation that write released was
   * created before it, so such a LIST shows it. Otherwise the LIST is repeated after the
   * ledger read, the order that guarantees the same. A caller with other reads to make starts
   * this beside them and hands it to `reserve` for its first attempt.
   */
  async snapshot(namespace: string): Promise<LedgerSnapshot> {
    const [ledger, listed] = await Promise.all([this.#read(namespace), this.#sandboxes(namespace)]);
    const written = Number(ledger?.metadata?.resourceVersion ?? 0);
    const fresh = written <= Number(listed.resourceVersion); // NaN: false, list again
    return { namespace, ledger, listed: (fresh ? listed : await this.#sandboxes(namespace)).items };
  }

  async reserve(req: ReserveRequest, first?: LedgerSnapshot): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const { ledger, listed } =
        attempt === 0 && first?.namespace === req.namespace ? first : await this.snapshot(req.namespace);
      const live = listed.filter((s) => !s.metadata.deletionTimestamp);
      const listedNames = new Set(listed.map((s) => s.metadata.name));
      const now = this.#now();
      const pending = Object.entries(ledger?.data ?? {})
        .map(([name, raw]) => [name, parse(raw)] as const)
        .filter((e): e is [string, Reservation] => e[1] !== undefined)
        .filter(([name, r]) => !listedNames.has(name) && now - r.at < RESERVATION_TTL_MS);
      const others = [
        ...live
          .filter((s) => s.metadata.name !== req.name)
          .map((s) => ({ user: s.spec.createdBy ?? '', mode: s.spec.mode })),
        ...pending.filter(([name]) => name !== req.name).map(([, r]) => r),
      ];
      req.decide({
        total: others.length,
        byUser: others.filter((o) => o.user === req.user).length,
        agents: others.filter((o) => o.mode === 'agent').length,
      });
      if (req.dryRun) return; // nothing will be written, so nothing may hold a slot
      const data = Object.fromEntries(pending.map(([name, r]) => [name, JSON.stringify(r)]));
      data[req.name] = JSON.stringify({ user: req.user, mode: req.mode, at: now } satisfies Reservation);
      try {
        await this.#write(req.namespace, ledger, data);
        return;
      } catch (err) {
        if (
          ((err as { code?: number }).code !== 409 && (err as { code?: number }).code !== 422) ||
          attempt >= 50
        )
          throw err;
      }
    }
  }

  /**
   * Ends the reservation of `name`: its Sandbox now exists (it counts itself) or is being
   * deleted (it counts no more). A no-op when there is none, so callers need not know.
   */
  async release(namespace: string, name: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const ledger = await this.#read(namespace);
      if (ledger?.data?.[name] === undefined) return;
      const { [name]: _released, ...data } = ledger.data;
      try {
        await this.#write(namespace, ledger, data);
        return;
      } catch (err) {
        if ((err as { code?: number }).code !== 409 || attempt >= 50) throw err;
      }
    }
  }

  /** Every Sandbox of the namespace, terminating ones included, and the revision listed. */
  async #sandboxes(namespace: string): Promise<{ items: Sandbox[]; resourceVersion: string | undefined }> {
    const list = (await this.#custom.listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: 'sandboxes',
    })) as {
      items: Sandbox[];
      metadata?: { resourceVersion?: string };
    };
    return { items: list.items, resourceVersion: list.metadata?.resourceVersion };
  }

  async #read(namespace: string): Promise<V1ConfigMap | undefined> {
    try {
      return await this.#core.readNamespacedConfigMap(this.#where(namespace));
    } catch (err) {
      if ((err as { code?: number }).code === 404) return undefined;
      throw err;
    }
  }

  async #write(
    namespace: string,
    current: V1ConfigMap | undefined,
    data: Record<string, string>,
  ): Promise<void> {
    const where = this.#where(namespace);
    if (current) {
      await this.#core.replaceNamespacedConfigMap({ ...where, body: { ...current, data } });
    } else {
      await this.#core.createNamespacedConfigMap({
        namespace: where.namespace,
        body: { metadata: { name: where.name, labels: { 'app.kubernetes.io/part-of': 'svc' } }, data },
      });
    }
  }
}

function parse(raw: string): Reservation | undefined {
  try {
    const r = JSON.parse(raw) as Reservation;
    return typeof r.at === 'number' ? r : undefined;
  } catch {
    return undefined;
  }
}
