import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { keyOf, type Informer } from './informer.ts';
import { WorkQueue, type Reconcile, type WorkQueueOptions } from './queue.ts';

/** Maps an owned object to its owner's key, or undefined when it has none of this kind. */
export type OwnerKey = (obj: KubernetesObject) => string | undefined;

/** An owned kind: its informer, and how one of its objects names its owner. */
export interface Owned {
  informer: Informer<KubernetesObject>;
  owner: OwnerKey;
}

/** A kind read by a controller: its informer, and the keys one of its objects concerns. */
export interface Watched {
  informer: Informer<KubernetesObject>;
  map: (obj: KubernetesObject) => Iterable<string>;
}

export interface ControllerOptions {
  /** Names the controller on its logs, metrics and spans. */
  name: string;
  /** The primary kind's informer: each change of one of its objects reconciles that object. */
  informer: Informer<KubernetesObject>;
  /** Kinds it owns: a change of one reconciles its owner. */
  owns?: Owned[];
  /**
   * Kinds it reads but does not own (templates, policies, snapshots): a change of one
   * reconciles every key `map` names for it (controller-runtime's `EnqueueRequestsFromMapFunc`).
   */
  watches?: Watched[];
  reconcile: Reconcile;
  /** Reconciles of this controller running at once (default the queue's). */
  maxConcurrent?: number;
  /** Told of a key whose reconcile threw a `TerminalError`: say why where a user looks. */
  onTerminal?: WorkQueueOptions['onTerminal'];
  logger: Logger;
  /**
   * Wrappers around the reconcile (metrics, tracing), each given the controller's name,
   * applied innermost first.
   */
  wrap?: ((name: string, reconcile: Reconcile) => Reconcile)[];
}

/**
 * One controller, in controller-runtime's shape: a primary kind, the kinds it owns, one
 * reconcile and its work queue. Informers are shared and started by the caller; a
 * controller only listens to them, so two controllers never list a kind twice.
 */
export class Controller {
  readonly name: string;
  readonly #queue: WorkQueue;

  constructor(o: ControllerOptions) {
    this.name = o.name;
    const reconcile = (o.wrap ?? []).reduce((r, w) => w(o.name, r), o.reconcile);
    this.#queue = new WorkQueue(reconcile, o.logger, {
      controller: o.name,
      ...(o.maxConcurrent !== undefined ? { maxConcurrent: o.maxConcurrent } : {}),
      ...(o.onTerminal ? { onTerminal: o.onTerminal } : {}),
    });
    o.informer.onChange((obj) => this.#queue.add(keyOf(obj)));
    for (const owned of o.owns ?? []) {
      owned.informer.onChange((obj) => {
        const key = owned.owner(obj);
        if (key) this.#queue.add(key);
      });
    }
    for (const watched of o.watches ?? []) {
      watched.informer.onChange((obj) => {
        for (const key of watched.map(obj)) this.#queue.add(key);
      });
    }
  }

  /** Reconciles `key` now (or after `afterMs`): for changes the informers do not see. */
  enqueue(key: string, afterMs = 0): void {
    this.#queue.add(key, afterMs);
  }

  get depth(): number {
    return this.#queue.depth;
  }

  /** Stops taking work and waits for reconciles in flight. */
  stop(): Promise<void> {
    return this.#queue.stop();
  }
}

/** The owner named by a label holding its name, in the object's own namespace. */
export function ownerByLabel(label: string): OwnerKey {
  return (obj) => {
    const name = obj.metadata?.labels?.[label];
    const ns = obj.metadata?.namespace;
    return name ? (ns ? `${ns}/${name}` : name) : undefined;
  };
}

/** The controlling owner reference of `kind`, in the object's own namespace. */
export function ownerByReference(kind: string): OwnerKey {
  return (obj) => {
    const ref = obj.metadata?.ownerReferences?.find((r) => r.kind === kind && r.controller);
    const ns = obj.metadata?.namespace;
    return ref ? (ns ? `${ns}/${ref.name}` : ref.name) : undefined;
  };
}
