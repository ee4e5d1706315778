// The opt-in retry on 429: a fetch that waits the server's Retry-After and sends the request
// again, at most `maxAttempts` times in all. Only 429 is retried: it is the one answer that
// says the same request will succeed later.
import { parseRetryAfter } from './errors.ts';

export interface RetryOptions {
  /** Attempts in all, the first included (1 = no retry). */
  maxAttempts: number;
  /** The longest one wait, in seconds, whatever Retry-After says (default 30). */
  maxDelaySeconds?: number;
  /** The wait when a 429 carries no Retry-After, in seconds (default 1). */
  defaultDelaySeconds?: number;
}

export type FetchLike = (request: Request) => Promise<Response>;
export type Sleep = (ms: number, signal: AbortSignal | undefined) => Promise<void>;

/** Waits `ms`, or rejects with the signal's reason once it aborts. */
export const sleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export function retrying(send: FetchLike, retry: RetryOptions, wait: Sleep = sleep): FetchLike {
  const maxAttempts = Math.max(1, Math.floor(retry.maxAttempts));
  const maxDelay = retry.maxDelaySeconds ?? 30;
  const fallback = retry.defaultDelaySeconds ?? 1;
  return async (request) => {
    for (let attempt = 1; ; attempt++) {
      // A copy for the next attempt before this one consumes the body.
      const next = attempt < maxAttempts ? request.clone() : undefined;
      const res = await send(request);
      if (res.status !== 429 || next === undefined) return res;
      const seconds = parseRetryAfter(res.headers.get('retry-after'), Date.now()) ?? fallback;
      await res.body?.cancel();
      await wait(Math.min(seconds, maxDelay) * 1000, request.signal);
      request = next;
    }
  };
}
