import diagnostics from 'node:diagnostics_channel';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { reuseConnections } from '../../kube/index.ts';

// undici announces every new connection it opens to an origin on this channel.
const CONNECTED = 'undici:client:connected';

describe('connections to the apiserver', () => {
  let opened = 0;
  const onConnected = () => opened++;
  beforeEach(() => {
    opened = 0;
    diagnostics.subscribe(CONNECTED, onConnected);
  });
  afterEach(() => {
    diagnostics.unsubscribe(CONNECTED, onConnected);
  });

  const readTenTimes = async (kc: KubeConfig) => {
    const core = kc.makeApiClient(CoreV1Api);
    for (let i = 0; i < 10; i++) await core.readNamespace({ name: 'default' });
  };

  it('client-node alone opens a new connection for every request (why reuseConnections exists)', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(inject('kubeconfigPath'));
    await readTenTimes(kc);
    expect(opened).toBe(10);
  });

  it('reuseConnections keeps one connection for ten requests in a row', async () => {
    const kc = reuseConnections(new KubeConfig());
    kc.loadFromFile(inject('kubeconfigPath'));
    await readTenTimes(kc);
    expect(opened).toBe(1);
  });

  it('a changed client credential gets a new connection pool, and requests still succeed', async () => {
    const kc = reuseConnections(new KubeConfig());
    kc.loadFromFile(inject('kubeconfigPath'));
    await readTenTimes(kc);
    // A rotated CA bundle (the same CA, written twice) changes the TLS options.
    const cluster = kc.getCurrentCluster()!;
    const ca = Buffer.from(cluster.caData!, 'base64').toString('utf8');
    kc.clusters = [{ ...cluster, caData: Buffer.from(`${ca}\n${ca}`).toString('base64') }];
    await readTenTimes(kc);
    expect(opened).toBe(2);
  });
});
