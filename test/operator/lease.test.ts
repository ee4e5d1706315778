// Leader election hands over at once when the leader stops cleanly (it releases the Lease),
// instead of after the Lease's duration.
import type { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { describe, expect, test } from 'vitest';
import { LeaderElector } from '../../kube/index.ts';
import { eventually } from '../../stack/index.ts';
import { useNamespace } from '../support/index.ts';

const ns = useNamespace('lease');
const logger = pino({ level: 'silent' });

describe('Lease release', () => {
  test('a stopped leader releases the Lease and a candidate takes it well before it would expire', async () => {
    // 60 s: without the release the candidate would wait a minute.
    const elector = (identity: string, kc = ns.kc) =>
      new LeaderElector({
        kc,
        logger,
        namespace: ns.name,
        name: 'svc-operator',
        identity,
        leaseDurationSeconds: 60,
      });
    const first = elector('first');
    await first.run(() => undefined);
    // The second candidate's requests are counted as they go out: one GET of the Lease per try.
    let tries = 0;
    const second = elector(
      'second',
      counting(ns.kc, () => tries++),
    );
    let leads = false;
    const waiting = second.run(() => undefined).then(() => (leads = true));
    // A third try under way means two have ended, both refused while the first one leads.
    await eventually(() => tries >= 3, { timeoutMs: 20_000, describe: () => `3 tries (${tries} so far)` });
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

/** `kc`, calling `onRequest` as each request made through it goes out. */
function counting(kc: KubeConfig, onRequest: () => void): KubeConfig {
  const seen = Object.create(kc) as KubeConfig;
  seen.applySecurityAuthentication = (context) => {
    onRequest();
    return kc.applySecurityAuthentication(context);
  };
  return seen;
}
