import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Calls `read` until `done` holds for its answer, at most `timeoutMs`: for hooks
 * (`beforeAll`, `afterAll`), where `expect.poll` cannot run. Throws naming `what` and the
 * last answer.
 */
export async function waitUntil<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() >= deadline)
      throw new Error(`${what}: not within ${timeoutMs} ms; last ${JSON.stringify(value)}`);
    await sleep(500);
  }
}
