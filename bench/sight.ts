// A watch a bench cannot lose without knowing. client-node's Watch ends after 30 s without
// an event, and on any error, and says so only to its `done` callback; the benches passed
// `() => undefined` there, so a bench whose watch had ended went on waiting for events that
// would never come (bench-scale: "only 0 of 100 Running after 10 minutes" while all 100 were
// Running). A Sight opens the watch again where it ended (from the last resourceVersion it
// saw; from the current state, which the apiserver replays as ADDED events, when that is too
// old), and when it cannot for `lostAfterMs` it is lost: `lost` rejects and `check()` throws,
// so the bench fails saying so instead of reporting a count it did not see.
import { Watch, type KubeConfig } from '@kubernetes/client-node';

export interface SightOptions {
  /** How long the watch may stay closed, failing to reopen, before it is lost. */
  lostAfterMs?: number;
}

interface Watched {
  metadata?: { resourceVersion?: string };
  code?: number;
  message?: string;
}

export class Sight {
  /** Rejects once the watch is lost; never resolves. */
  readonly lost: Promise<never>;
  /** How often the watch was opened again after it ended (each a possible gap in timing). */
  reopened = 0;
  readonly #kc: KubeConfig;
  readonly #path: string;
  readonly #onEvent: (type: string, obj: unknown) => void;
  readonly #lostAfterMs: number;
  #resourceVersion: string | undefined;
  #controller: AbortController | undefined;
  #stopped = false;
  #error: Error | undefined;
  #failingSince: number | undefined;
  #fail!: (err: Error) => void;

  private constructor(
    kc: KubeConfig,
    path: string,
    onEvent: (type: string, obj: unknown) => void,
    o: SightOptions,
  ) {
    this.#kc = kc;
    this.#path = path;
    this.#onEvent = onEvent;
    this.#lostAfterMs = o.lostAfterMs ?? 30_000;
    this.lost = new Promise<never>((_, reject) => (this.#fail = reject));
    // Only the bench's own wait reads it; an unobserved loss must not end the process.
    this.lost.catch(() => undefined);
  }

  /** Opens the watch on `path` (a list path of the API); resolves once it is open. */
  static async open<T>(
    kc: KubeConfig,
    path: string,
    onEvent: (type: string, obj: T) => void,
    o: SightOptions = {},
  ): Promise<Sight> {
    const sight = new Sight(kc, path, onEvent as (type: string, obj: unknown) => void, o);
    await sight.#open();
    return sight;
  }

  /** Throws the reason once the watch is lost. */
  check(): void {
    if (this.#error) throw this.#error;
  }

  stop(): void {
    this.#stopped = true;
    this.#controller?.abort();
  }

  async #open(): Promise<void> {
    const params: Record<string, string | boolean> = { allowWatchBookmarks: true };
    if (this.#resourceVersion) params.resourceVersion = this.#resourceVersion;
    this.#controller = await new Watch(this.#kc).watch(
      this.#path,
      params,
      (type: string, obj: Watched) => {
        this.#failingSince = undefined;
        if (type === 'ERROR') {
          // 410 Gone: the resourceVersion is too old; the next open starts from now.
          if (obj.code === 410) this.#resourceVersion = undefined;
          return;
        }
        this.#resourceVersion = obj.metadata?.resourceVersion ?? this.#resourceVersion;
        if (type !== 'BOOKMARK') this.#onEvent(type, obj);
      },
      (err: unknown) => this.#ended(err),
    );
  }

  /**
   * The watch ended. Closed, or quiet for 30 s (client-node's timeout): open it again at
   * once. Failed (the apiserver refused it or could not be reached): again after a pause,
   * until it has failed for `lostAfterMs` with no event in between; then it is lost.
   */
  #ended(err: unknown): void {
    if (this.#stopped || this.#error) return;
    this.reopened++;
    const quiet = err === null || err === undefined || (err as Error).name === 'TimeoutError';
    if (quiet) this.#failingSince = undefined;
    else this.#failingSince ??= performance.now();
    const failingMs = this.#failingSince === undefined ? 0 : performance.now() - this.#failingSince;
    if (failingMs >= this.#lostAfterMs) {
      this.#error = new Error(
        `lost sight of ${this.#path}: its watch failed for ${Math.round(failingMs / 1000)} s (${describe(err)})`,
      );
      this.#fail(this.#error);
      return;
    }
    setTimeout(
      () => {
        if (!this.#stopped) this.#open().catch((e: unknown) => this.#ended(e));
      },
      quiet ? 0 : 500,
    );
  }
}

function describe(err: unknown): string {
  if (err === null || err === undefined) return 'closed';
  return err instanceof Error ? err.message : JSON.stringify(err);
}
