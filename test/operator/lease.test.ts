// Leader election hands over at once when the leader stops cleanly (it releases the Lease),
// instead of after the Lease's duration.
import { pino } from 'pino';
import { describe, expect, test } from 'vitest';
import { LeaderElector } from '../../kube/index.ts';
import { useNamespace } from '../support/index.ts';

const ns = useNamespace('lease');
const logger = pino({ level: 'silent' });

describe('Lease release', () => {
  test('a stopped leader releases the Lease and a candidate takes it well before it would expire', async () => {
    // 60 s: without the release the candidate would wait a minute.
    const elector = (identity: string) =>
      new LeaderElector({
        kc: ns.kc,
        logger,
        namespace: ns.name,
        name: 'svc-operator',
        identity,
        leaseDurationSeconds: 60,
      });
    const first = elector('first');
    await first.run(() => undefined);
    const second = elector('second');
    let leads = false;
    const waiting = second.run(() => undefined).then(() => (leads = true));
    await new Promise((r) => setTimeout(r, 3_000));
    expect(leads).toBe(false);

    const started = Date.now();
    first.stop();
    expect(await first.release()).toBe(true);
    await waiting;
    expect(Date.now() - started).toBeLessThan(20_000);
    // The former leader does not clear a Lease it no longer holds.
    expect(await first.release()).toBe(false);
    second.stop();
    expect(await second.release()).toBe(true);
  }, 60_000);
});
